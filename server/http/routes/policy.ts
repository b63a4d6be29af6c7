import { Hono } from 'hono';
import type { OracleCode } from '../../../shared/outcome-codes.js';
import type { PolicyCandidateView } from '../../../shared/policy-candidate-view.js';
import type { Caller } from '../caller.js';
import { fail } from '../errors.js';

/** What the routes need (server/app/policy-candidates.ts implements it). */
export interface PolicyCandidatesService {
  list(): readonly PolicyCandidateView[];
  propose(agent: string, text: unknown, reason: unknown): Promise<{ readonly ok: true; readonly candidate: PolicyCandidateView } | { readonly ok: false; readonly code: OracleCode; readonly message: string; readonly errors?: readonly unknown[] }>;
  activate(id: string, activeDigest: unknown, phrase: unknown): Promise<{ readonly ok: true; readonly reload: unknown } | { readonly ok: false; readonly code: OracleCode; readonly message: string }>;
  discard(id: string): Promise<boolean>;
}

type Vars = { Variables: { caller: Caller } };

const bodyOf = async (text: Promise<string>): Promise<Record<string, unknown> | undefined> => {
  try {
    const v: unknown = JSON.parse(await text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Policy candidates (issue 16): an agent proposes (its credential names it), the desktop alone
 * lists, activates (compare-and-set on the policy in force) or discards. A phone does neither.
 */
export function policyRoutes(candidates: PolicyCandidatesService): Hono<Vars> {
  const app = new Hono<Vars>();
  app.post('/candidates', async (c) => {
    const caller = c.get('caller');
    if (caller.kind !== 'agent') return fail(c, 'FORBIDDEN', 'agents propose policy changes; the desktop activates them');
    const body = await bodyOf(c.req.text());
    if (body === undefined) return fail(c, 'INPUT_INVALID', 'the body is a JSON object: {policy, reason}');
    const proposed = await candidates.propose(caller.name, body['policy'], body['reason']);
    if (!proposed.ok) return c.json({ error: { code: proposed.code, message: proposed.message }, ...(proposed.errors === undefined ? {} : { errors: proposed.errors }) }, 400);
    return c.json({ candidate: proposed.candidate, note: 'kept as a candidate: it takes effect only when a person activates it on the desktop' }, 201);
  });
  app.use('/candidates/*', async (c, next) => {
    if (c.get('caller').kind !== 'desktop') return fail(c, 'FORBIDDEN', 'only the desktop activates or discards a policy candidate');
    await next();
    return undefined;
  });
  app.get('/candidates', (c) => {
    if (c.get('caller').kind !== 'desktop') return fail(c, 'FORBIDDEN', 'only the desktop lists policy candidates');
    return c.json({ candidates: candidates.list() });
  });
  app.post('/candidates/:id/activate', async (c) => {
    const body = (await bodyOf(c.req.text())) ?? {};
    const result = await candidates.activate(c.req.param('id'), body['active_digest'], body['phrase']);
    if (!result.ok) return c.json({ error: { code: result.code, message: result.message } }, result.code === 'NOT_FOUND' ? 404 : 409);
    return c.json({ reload: result.reload });
  });
  app.post('/candidates/:id/discard', async (c) => {
    await c.req.text();
    return (await candidates.discard(c.req.param('id'))) ? c.json({ discarded: c.req.param('id') }) : fail(c, 'NOT_FOUND', 'no such policy candidate');
  });
  return app;
}
