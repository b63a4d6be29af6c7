import { Hono, type Context } from 'hono';
import type { OracleCode } from '../../../shared/outcome-codes.js';
import type { TerminalView } from '../../../shared/terminal-view.js';
import type { Caller } from '../caller.js';
import { fail } from '../errors.js';

type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly code: OracleCode; readonly reason: string };

/** What the routes need (server/app/terminal-desk.ts implements it). */
export interface TerminalService {
  list(): readonly TerminalView[];
  open(request: Readonly<Record<string, unknown>>, by: string): Promise<Result<TerminalView>>;
  screen(name: string, lines: number): Promise<Result<{ readonly text: string; readonly view: TerminalView | undefined }>>;
  close(name: string, by: string): Promise<Result<null>>;
}

type Vars = { Variables: { caller: Caller } };

const STATUS: Partial<Record<OracleCode, 400 | 404 | 409 | 423>> = { TERM_UNKNOWN: 404, TERM_EXISTS: 409, TERM_LIMIT: 409, TERM_EXITED: 409, HALTED: 423, TERM_REFUSED: 400 };

/**
 * The gate's terminals (issue 16), for the person only: the desktop screen and the CLI (its local
 * desktop token) open, list, look at and close them. A phone does none of it, and an agent reaches
 * a terminal only through term.write and term.read, which the policy judges.
 */
export function terminalRoutes(terminals: TerminalService): Hono<Vars> {
  const app = new Hono<Vars>();
  app.use('*', async (c, next) => {
    if (c.get('caller').kind !== 'desktop') return fail(c, 'FORBIDDEN', 'terminals are opened and watched from this computer (the desktop screen or `oracle term`)');
    await next();
    return undefined;
  });
  const answer = <T>(c: Context<Vars>, result: Result<T>, ok: (value: T) => Response): Response =>
    result.ok ? ok(result.value) : c.json({ error: { code: result.code, message: result.reason } }, STATUS[result.code] ?? 409);
  app.get('/', (c) => c.json({ terminals: terminals.list() }));
  app.post('/', async (c) => {
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      body = undefined;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail(c, 'INPUT_INVALID', 'the body is a JSON object: {name, program, args, cwd, cols?, rows?}');
    return answer(c, await terminals.open(body as Record<string, unknown>, 'desktop'), (view) => c.json({ terminal: view }, 201));
  });
  app.get('/:name', async (c) => {
    const lines = Number(c.req.query('lines') ?? '200');
    if (!Number.isInteger(lines) || lines < 1 || lines > 1000) return fail(c, 'INPUT_INVALID', 'lines is a whole number from 1 to 1000');
    return answer(c, await terminals.screen(c.req.param('name'), lines), (screen) => c.json(screen));
  });
  app.delete('/:name', async (c) => answer(c, await terminals.close(c.req.param('name'), 'desktop'), () => c.json({ closed: c.req.param('name') })));
  return app;
}
