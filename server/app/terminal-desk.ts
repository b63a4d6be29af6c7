import type { AuditBody } from '../core/audit/record.js';
import { canonicalize } from '../core/paths/canonicalize.js';
import type { CompiledPolicy } from '../core/policy/compile.js';
import type { GateMode } from '../core/decide/context.js';
import type { Terminals, TermResult } from '../toolhost/terminals.js';
import { sandboxView } from '../toolhost/sandbox-masks.js';
import type { Redactor } from '../toolhost/env.js';
import type { TerminalView } from '../../shared/terminal-view.js';

/** The body of `POST /api/v1/terms`, unchecked: {name, program, args, cwd, cols?, rows?}. */
export type OpenRequest = Readonly<Record<string, unknown>>;

export interface TerminalDesk {
  list(): readonly TerminalView[];
  open(request: OpenRequest, by: string): Promise<TermResult<TerminalView>>;
  /** What the screen shows now, redacted like term.read. */
  screen(name: string, lines: number): Promise<TermResult<{ readonly text: string; readonly view: TerminalView | undefined }>>;
  close(name: string, by: string): Promise<TermResult<null>>;
}

const size = (v: unknown, fallback: number, max: number): number | undefined => (v === undefined ? fallback : Number.isInteger(v) && (v as number) >= 2 && (v as number) <= max ? (v as number) : undefined);

/**
 * The person's side of the gate's terminals (issue 16): open one in a folder of a scope (the
 * folder is canonicalised like any path an agent names, so a terminal never sees more than an
 * agent may), look at one, close one. Every open and close is audited.
 */
export function terminalDesk(deps: { readonly terminals: Terminals; readonly gate: () => CompiledPolicy; readonly mode: () => GateMode; readonly redact: Redactor; readonly audit: (body: AuditBody) => Promise<unknown>; readonly now: () => Date }): TerminalDesk {
  const { terminals } = deps;
  const refused = (reason: string): TermResult<never> => ({ ok: false, code: 'TERM_REFUSED', reason });
  return {
    list: () => terminals.list(),
    async open(request, by) {
      if (deps.mode() === 'halted') return { ok: false, code: 'HALTED', reason: 'the gate is halted; resume it before opening a terminal' };
      const { name, program, args, cwd } = request as { name?: unknown; program?: unknown; args?: unknown; cwd?: unknown };
      if (typeof name !== 'string' || typeof program !== 'string') return refused('a terminal needs a name and an absolute program path');
      if (!Array.isArray(args) || args.length > 256 || !args.every((a): a is string => typeof a === 'string' && a.length <= 4096)) return refused('args is a list of at most 256 strings');
      const cols = size(request['cols'], 100, 500);
      const rows = size(request['rows'], 30, 200);
      if (cols === undefined || rows === undefined) return refused('cols and rows are whole numbers (2–500, 2–200)');
      const scoped = canonicalize(cwd, deps.gate(), { cwd: undefined, access: 'read' });
      if (!scoped.ok) return refused(`the terminal's folder is refused: ${scoped.reason}`);
      // The folder is walked for what the policy hides (it may take a while in a large tree, and
      // the gate answers others meanwhile); HALT may have come in that time.
      const view = await sandboxView(deps.gate(), scoped.value.real, { gitVisible: false });
      if (deps.mode() === 'halted') return { ok: false, code: 'HALTED', reason: 'the gate was halted; resume it before opening a terminal' };
      const opened = 'incomplete' in view ? refused(`ORACLE cannot tell what to hide from the terminal: ${view.incomplete}; open it in a smaller folder`) : terminals.open({ name, program, args, cwd: scoped.value, view, cols, rows, by });
      await deps.audit({
        kind: 'terminal',
        ts: deps.now().toISOString(),
        actor: by,
        outcome: opened.ok ? 'opened' : opened.code,
        detail: { name, program, args: args.slice(0, 32), cwd: scoped.value.real, ...(opened.ok ? { pid: opened.value.pid, sandbox: opened.value.sandbox } : { reason: opened.reason }) },
      });
      return opened;
    },
    async screen(name, lines) {
      const read = await terminals.read(name, lines);
      if (!read.ok) return read;
      return { ok: true, value: { text: deps.redact(read.value.text, []), view: terminals.list().find((t) => t.name === name) } };
    },
    async close(name, by) {
      const closed = terminals.close(name);
      if (closed.ok) await deps.audit({ kind: 'terminal', ts: deps.now().toISOString(), actor: by, outcome: 'closed', detail: { name } });
      return closed;
    },
  };
}
