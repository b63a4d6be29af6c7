import type { AuditBody } from '../audit/record.js';
import type { Evaluation } from '../decide/decide.js';

/**
 * The audit records every action shares (SPEC §7), built in one place: whether the gate runs the
 * action (runAction) or the agent runs it itself after the gate allowed it (the hook's calls),
 * its decision record has the same fields, and each later record of it starts from the same base.
 */
export interface RecordFacts {
  readonly actionId: string;
  readonly actor: string;
  readonly now: () => Date;
  /** `sha256:` of the canonical arguments. */
  readonly digest: (value: unknown) => string;
  /** A redacted, bounded preview of the arguments. */
  readonly preview: (args: Readonly<Record<string, unknown>> | null) => string;
}

/** What every record of one action carries: who, which action, which session, what it was asked. */
export function actionBase(evaluation: Evaluation, facts: RecordFacts): Omit<AuditBody, 'kind'> {
  const { tool, args } = evaluation;
  return {
    ts: facts.now().toISOString(),
    actor: facts.actor,
    action_id: facts.actionId,
    ...(evaluation.session === undefined ? {} : { session: evaluation.session }),
    ...(tool === null ? {} : { tool }),
    ...(args === null ? {} : { args_digest: facts.digest(args), args_preview: facts.preview(args) }),
  };
}

/**
 * The decision record: what the policy decided and why. `outcome` says what became of it when
 * that is already known (`refused-headless`: nobody could be asked; `caller-executes`: the agent
 * runs it itself).
 */
export function decisionRecord(base: Omit<AuditBody, 'kind'>, evaluation: Evaluation, outcome?: string): AuditBody {
  const { decision } = evaluation;
  return {
    ...base,
    kind: 'decision',
    tier: decision.tier,
    decision: decision.decision,
    code: decision.code,
    rule: decision.rule,
    reasons: decision.reasons,
    ...(outcome === undefined ? {} : { outcome }),
  };
}
