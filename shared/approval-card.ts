import { canonicalJson } from './canonical-json.js';

/**
 * An approval card as phones and the desktop receive it (SPEC §7, §9a): the approval itself,
 * signed by the server's TLS key over its RFC 8785 canonical JSON, so a screen verifies the card
 * against the pinned key before it offers approve.
 */
export interface ApprovalCard {
  readonly approval_id: string;
  readonly trace_id: string;
  readonly tool: string;
  readonly arg_hash: string;
  readonly tier: 'T2' | 'T3';
  readonly requested_at: string;
  readonly expires_at: string;
  readonly reason: string;
  /** `{tool, args}` rendered from the resolved arguments, redacted (`[REDACTED:…]` marks a cut). */
  readonly preview: Readonly<Record<string, unknown>>;
  readonly provenance: readonly string[];
  readonly nonce: string;
  readonly session: string | null;
  readonly project: string | null;
  readonly agent: string | null;
  readonly state: string;
  readonly device: string | null;
  readonly decided_at: string | null;
  readonly message: string | null;
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
