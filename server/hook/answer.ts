/**
 * The shape of Claude Code's hook answer, and the hook's time budget: all the thin command client
 * needs besides forwarding (kept apart so that client loads nothing else).
 */
export type HookDecision = 'allow' | 'deny' | 'ask';

export interface HookAnswer {
  /** The JSON Claude Code reads (stdout of a command hook, the body of an http hook's answer). */
  readonly output: Readonly<Record<string, unknown>>;
}

/**
 * One time budget per call, well inside the hook timeout `oracle integrate` writes (120 s): what is
 * still unanswered when it ends is denied before Claude Code's own timeout could fire.
 */
export const HOOK_TIMEOUT_S = 120;
export const HOOK_BUDGET_MS = 100_000;

/** The events whose answer is a permission decision: a tool call, or a skill's shell command. */
export type DecidedEvent = 'PreToolUse' | 'PreSkillShellCommand';

/** `updatedInput`, with an allow only: the input Claude Code runs instead of the one it proposed. */
export function preToolAnswer(decision: HookDecision, reason: string, event: DecidedEvent = 'PreToolUse', updatedInput?: Readonly<Record<string, unknown>>): HookAnswer {
  const updated = decision === 'allow' && updatedInput !== undefined ? { updatedInput } : {};
  return { output: { hookSpecificOutput: { hookEventName: event, permissionDecision: decision, permissionDecisionReason: reason, ...updated } } };
}
