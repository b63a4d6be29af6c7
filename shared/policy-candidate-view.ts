/** A policy candidate as the desktop lists it (issue 16): what it changes, in policy terms, and whether it is stale. */
export interface PolicyCandidateView {
  readonly id: string;
  readonly reason: string;
  readonly proposed_by: string;
  readonly proposed_at: string;
  /** The policy in force it would replace; activation names it (compare-and-set). */
  readonly active_digest: string | null;
  /** It was proposed against another policy than the one in force now. */
  readonly stale: boolean;
  readonly changes: readonly { readonly effect: 'gains' | 'loses' | 'changes'; readonly what: string; readonly widens: boolean }[];
  /** Activation needs this phrase typed: it widens what agents may do (an agent's ceiling, a deny_always entry). */
  readonly phrase: string | null;
  readonly text: string;
}
