import { canonicalJson } from './canonical-json.js';
import type { Tier } from './tiers.js';

export const APPROVAL_STATES = ['pending', 'approved', 'denied', 'expired', 'consumed', 'cancelled'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/**
 * An approval (SPEC §7) as the gate keeps it and as phones and the desktop receive it: a
 * single-use, expiring grant for one invocation, bound to the hash of its fully resolved
 * arguments. On the wire it is a card, signed by the server's TLS key over its RFC 8785 canonical
 * JSON, so a screen verifies it against the pinned key before it offers approve (SPEC §9a).
 */
export interface ApprovalCard {
  readonly approval_id: string;
  /** The action this approval is for. */
  readonly trace_id: string;
  readonly tool: string;
  /** `sha256:` of the RFC 8785 canonical JSON of the resolved arguments. */
  readonly arg_hash: string;
  readonly tier: Extract<Tier, 'T2' | 'T3'>;
  readonly requested_at: string;
  readonly expires_at: string;
  readonly reason: string;
  /** `{tool, args}` rendered from the resolved arguments, redacted (`[REDACTED:…]` marks a cut), never a model's paraphrase. */
  readonly preview: Readonly<Record<string, unknown>>;
  /** What was read before this was proposed, when the session is tainted. */
  readonly provenance: readonly string[];
  readonly nonce: string;
  readonly session: string | null;
  /** The scope root the action works in, for scoped remembering. */
  readonly project: string | null;
  /** The agent (principal) that asked; a remembered rule is for that agent only. */
  readonly agent: string | null;
  readonly state: ApprovalState;
  /** Who decided (device id or `desktop`); null until then. */
  readonly device: string | null;
  readonly decided_at: string | null;
  /** A person's message to the agent with a denial. */
  readonly message: string | null;
  /**
   * How an approved action ORACLE ran ended (`code`: its error's, null when it succeeded); absent
   * while it runs, and for a call the agent's own runtime runs (Claude Code's), whose end ORACLE
   * does not see. A phone had said "approved · ran" of a push that failed (phone probe, session 36).
   */
  readonly outcome?: { readonly ok: boolean; readonly code: string | null };
}

export type SignedCard = ApprovalCard & { readonly card_sig: string };

/** The bytes the server signs and the screens verify: the card without its signature. */
export function cardSigningInput(card: ApprovalCard | SignedCard): Uint8Array<ArrayBuffer> {
  const { card_sig: _sig, ...unsigned } = card as SignedCard;
  return new TextEncoder().encode(canonicalJson(unsigned));
}

/** The phrase a person types on the desktop to approve a T3 action. */
export function confirmationPhrase(card: Pick<ApprovalCard, 'tool' | 'approval_id'>): string {
  return `${card.tool} ${card.approval_id.slice(-6)}`;
}
