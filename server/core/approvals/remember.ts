import type { Approval } from './approval.js';

/**
 * Scoped remembering (SPEC §7): "allow `npm test` in this project for this session" is a rule
 * keyed on (tool, exact arguments, project, session) with an expiry. Never for T3, never without
 * a session and a project, never broader than the one command a person saw.
 */
export interface RememberedRule {
  readonly id: string;
  readonly tool: string;
  readonly arg_hash: string;
  readonly project: string;
  readonly session: string;
  /** The agent it was granted to (session ids are the client's own choice, principals are not). */
  readonly agent: string | null;
  readonly created_at: string;
  readonly expires_at: string;
  readonly created_by: string;
  /** What the person saw, for listing the rule. */
  readonly preview: Readonly<Record<string, unknown>>;
}

export const MAX_REMEMBER_MS = 12 * 60 * 60 * 1000;

export function rememberFrom(approval: Approval, input: { id: string; ttlMs: number; now: Date }): { ok: true; rule: RememberedRule } | { ok: false; reason: string } {
  if (approval.tier === 'T3') return { ok: false, reason: 'T3 is never remembered' };
  if (approval.state !== 'approved' && approval.state !== 'consumed') return { ok: false, reason: 'only an approved action can be remembered' };
  if (approval.session === null || approval.project === null) return { ok: false, reason: 'a remembered rule needs a session and a project' };
  if (approval.device === null) return { ok: false, reason: 'nobody approved it' };
  const ttl = Math.min(Math.max(input.ttlMs, 1000), MAX_REMEMBER_MS);
  return {
    ok: true,
    rule: {
      id: input.id,
      tool: approval.tool,
      arg_hash: approval.arg_hash,
      project: approval.project,
      session: approval.session,
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
  if (action.tier === 'T3' || action.session === null || action.project === null) return undefined;
  return rules.find(
    (r) =>
      r.tool === action.tool &&
      r.arg_hash === action.argHash &&
      r.project === action.project &&
      r.session === action.session &&
      r.agent === (action.agent ?? null) &&
      now.getTime() < Date.parse(r.expires_at),
  );
}
