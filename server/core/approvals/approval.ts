import type { ApprovalCode } from '../../../shared/outcome-codes.js';
import { APPROVAL_STATES, confirmationPhrase, type ApprovalCard, type ApprovalState } from '../../../shared/approval-card.js';

/**
 * Approvals (SPEC §7): pure transitions; clocks and ids come in as arguments. The approval's shape
 * is the wire contract the screens receive (shared/approval-card.ts).
 */
export { APPROVAL_STATES, type ApprovalState };
export type Approval = ApprovalCard;

export interface Approver {
  readonly id: string;
  readonly kind: 'desktop' | 'device';
  /** What this approver's profile allows (SPEC §9): phones approve T2, never T3. */
  readonly approveT2: boolean;
  readonly approveT3: boolean;
}

export const APPROVAL_REFUSALS = [
  'APPROVAL_UNKNOWN',
  'APPROVAL_NOT_PENDING',
  'APPROVAL_EXPIRED',
  'APPROVAL_NONCE',
  'APPROVAL_ARGS_CHANGED',
  'APPROVAL_PROFILE',
  'APPROVAL_PHRASE',
  'APPROVAL_REPLAY',
  'APPROVAL_NOT_APPROVED',
  'REMEMBER_REFUSED',
] as const satisfies readonly ApprovalCode[];
export type ApprovalRefusal = (typeof APPROVAL_REFUSALS)[number];

export type Transition = { readonly ok: true; readonly approval: Approval } | { readonly ok: false; readonly code: ApprovalRefusal; readonly reason: string };

export const DEFAULT_APPROVAL_TTL_MS = 5 * 60 * 1000;

export interface RequestInput {
  readonly approvalId: string;
  readonly traceId: string;
  readonly tool: string;
  readonly argHash: string;
  readonly tier: 'T2' | 'T3';
  readonly reason: string;
  readonly preview: Readonly<Record<string, unknown>>;
  readonly provenance: readonly string[];
  readonly nonce: string;
  readonly session: string | null;
  readonly project: string | null;
  readonly agent?: string | null;
}

export function requestApproval(input: RequestInput, now: Date, ttlMs = DEFAULT_APPROVAL_TTL_MS): Approval {
  return {
    approval_id: input.approvalId,
    trace_id: input.traceId,
    tool: input.tool,
    arg_hash: input.argHash,
    tier: input.tier,
    requested_at: now.toISOString(),
    expires_at: new Date(now.getTime() + ttlMs).toISOString(),
    reason: input.reason,
    preview: input.preview,
    provenance: input.provenance,
    nonce: input.nonce,
    session: input.session,
    project: input.project,
    agent: input.agent ?? null,
    state: 'pending',
    device: null,
    decided_at: null,
    message: null,
  };
}

export { confirmationPhrase };

const expired = (approval: Approval, now: Date): boolean => now.getTime() >= Date.parse(approval.expires_at);

export interface Verdict {
  readonly approver: Approver;
  readonly verdict: 'approve' | 'deny';
  /** Echoed from the card: the approver saw this exact request. */
  readonly nonce: string;
  readonly argHash: string;
  readonly phrase?: string;
  readonly message?: string;
}

/**
 * A person's answer. Approve requires: still pending, not expired, the card's nonce and argument
 * hash, a profile that allows the tier, and for T3 the desktop and the typed phrase. Deny is
 * always accepted while pending (anyone who may see the card may say no).
 */
export function decideApproval(approval: Approval, verdict: Verdict, now: Date): Transition {
  if (approval.state !== 'pending') return refuse('APPROVAL_NOT_PENDING', `the approval is ${approval.state}`);
  if (expired(approval, now)) return { ok: true, approval: { ...approval, state: 'expired', decided_at: now.toISOString() } };
  if (verdict.nonce !== approval.nonce) return refuse('APPROVAL_NONCE', 'the nonce does not match the card');
  if (verdict.argHash !== approval.arg_hash) return refuse('APPROVAL_ARGS_CHANGED', 'the arguments differ from the card; an edit is a new request');
  const decided = { device: verdict.approver.id, decided_at: now.toISOString(), message: verdict.message ?? null };
  if (verdict.verdict === 'deny') return { ok: true, approval: { ...approval, ...decided, state: 'denied' } };
  // INVARIANT: T3 is approved only at the desktop with the typed phrase, whatever a UI sends.
  if (approval.tier === 'T3') {
    if (verdict.approver.kind !== 'desktop' || !verdict.approver.approveT3) return refuse('APPROVAL_PROFILE', 'T3 is approved only at the desktop');
    if (verdict.phrase !== confirmationPhrase(approval)) return refuse('APPROVAL_PHRASE', 'the typed confirmation phrase does not match');
  } else if (!verdict.approver.approveT2) {
    return refuse('APPROVAL_PROFILE', `${verdict.approver.id} may not approve T2`);
  }
  return { ok: true, approval: { ...approval, ...decided, state: 'approved' } };
}

/**
 * At execution: the executor recomputes the hash of what it is about to run. Single use, before
 * expiry, exactly these arguments; anything else is refused.
 */
export function consumeApproval(approval: Approval, argHash: string, now: Date): Transition {
  if (approval.state === 'consumed') return refuse('APPROVAL_REPLAY', 'the approval was already used');
  if (approval.state !== 'approved') return refuse('APPROVAL_NOT_APPROVED', `the approval is ${approval.state}`);
  if (expired(approval, now)) return refuse('APPROVAL_EXPIRED', 'the approval expired before the action ran');
  if (argHash !== approval.arg_hash) return refuse('APPROVAL_ARGS_CHANGED', 'the arguments changed after approval');
  return { ok: true, approval: { ...approval, state: 'consumed' } };
}

/** Pending approvals past their expiry are expired; expiry means deny (SPEC §7). */
export function expireDue(approval: Approval, now: Date): Approval {
  return approval.state === 'pending' && expired(approval, now) ? { ...approval, state: 'expired', decided_at: now.toISOString() } : approval;
}

/**
 * Withdrawn (the agent went away) or cancelled by a HALT, which names who halted (`message: 'HALT'`).
 * A HALT also cancels an approval granted but not yet used (SPEC §8: every waiting action): its
 * agent had not collected it, and after a resume it must ask again (red team, session 32: an
 * approved delete ran after HALT and resume).
 */
export function cancel(approval: Approval, now: Date, by?: { readonly device: string; readonly message: 'HALT' }): Approval {
  const waiting = approval.state === 'pending' || (by !== undefined && approval.state === 'approved');
  return waiting ? { ...approval, state: 'cancelled', decided_at: now.toISOString(), ...(by === undefined ? {} : by) } : approval;
}

function refuse(code: ApprovalRefusal, reason: string): Transition {
  return { ok: false, code, reason };
}
