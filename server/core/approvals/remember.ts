import type { Approval } from './approval.js';

/**
 * Scoped remembering (SPEC §7, issue 16): "allow `npm test` in this project for this session" is a
 * rule keyed on (tool, exact arguments, project, session, agent) with an expiry. A person may also
 * say "for this project for N hours" (the desktop only): the same exact arguments, any session of
 * that agent in that project. Never for T3, never for term.write (a line into a person's terminal
 * is asked every time), never without a project, never broader than the one action a person saw.
 */
export type RememberScope = 'session' | 'project';
export interface RememberedRule {
  readonly id: string;
  readonly tool: string;
  readonly arg_hash: string;
  readonly project: string;
  /** null: any session of the agent in the project (a desktop's "for this project for N hours"). */
  readonly session: string | null;
  /** The agent it was granted to (session ids are the client's own choice, principals are not). */
  readonly agent: string | null;
  readonly created_at: string;
  readonly expires_at: string;
  readonly created_by: string;
  /** What the person saw, for listing the rule. */
  readonly preview: Readonly<Record<string, unknown>>;
  /** How many cards it answered: prompts a person was spared. */
  readonly uses?: number;
}

/** Why an approval cannot become a rule of this scope (undefined: it can). */
export function rememberRefusal(approval: Pick<Approval, 'tier' | 'tool' | 'session' | 'project'>, scope: RememberScope): string | undefined {
  if (approval.tier === 'T3') return 'T3 is never remembered';
  if (approval.tool === 'term.write') return 'a line into a terminal is asked every time';
  // A delete is bound to what was at the path when the person saw it (the card's fingerprint); a
  // rule by path alone would delete whatever is put there later (red team, session 32).
  if (approval.tool === 'fs.delete') return 'a delete is asked every time: it removes what is at the path then';
  if (approval.project === null) return 'a remembered rule needs a project';
  if (scope === 'session' && approval.session === null) return 'this agent named no session: it can be remembered only for the project';
  return undefined;
}

export const MAX_REMEMBER_MS = 12 * 60 * 60 * 1000;

export function rememberFrom(approval: Approval, input: { id: string; ttlMs: number; now: Date; scope?: RememberScope }): { ok: true; rule: RememberedRule } | { ok: false; reason: string } {
  const scope = input.scope ?? 'session';
  const refused = rememberRefusal(approval, scope);
  if (refused !== undefined) return { ok: false, reason: refused };
  if (approval.state !== 'approved' && approval.state !== 'consumed') return { ok: false, reason: 'only an approved action can be remembered' };
  if (approval.project === null) return { ok: false, reason: 'a remembered rule needs a project' };
  if (approval.device === null) return { ok: false, reason: 'nobody approved it' };
  const ttl = Math.min(Math.max(input.ttlMs, 1000), MAX_REMEMBER_MS);
  return {
    ok: true,
    rule: {
      id: input.id,
      tool: approval.tool,
      arg_hash: approval.arg_hash,
      project: approval.project,
      session: scope === 'project' ? null : approval.session,
      agent: approval.agent,
      created_at: input.now.toISOString(),
      expires_at: new Date(input.now.getTime() + ttl).toISOString(),
      created_by: approval.device,
      preview: approval.preview,
    },
  };
}

export function matchRemembered(
  rules: readonly RememberedRule[],
  action: { tool: string; argHash: string; project: string | null; session: string | null; tier: string; agent?: string | null },
  now: Date,
): RememberedRule | undefined {
  if (action.tier === 'T3' || action.tool === 'term.write' || action.project === null) return undefined;
  return rules.find(
    (r) =>
      r.tool === action.tool &&
      r.arg_hash === action.argHash &&
      r.project === action.project &&
      (r.session === null || r.session === action.session) &&
      r.agent === (action.agent ?? null) &&
      now.getTime() < Date.parse(r.expires_at),
  );
}
