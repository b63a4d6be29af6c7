import type { AllowDecision } from '../../shared/decision.js';
import type { RunResult } from '../core/lifecycle/run-action.js';
import { isToolName } from '../core/tools/registry.js';
import { prepareAction, type ExecutionResult } from '../toolhost/types.js';
import { PROBE_SCRIPT } from './fixtures.js';
import { OUTCOME, type Evidence, type Outcome } from './model.js';
import type { Subject } from './subject.js';

/**
 * What the probes share: the probe job as an action, the forced run past the gate, and words
 * for what the gate and a job did. Only the subject touches the host.
 */

/**
 * The decision a forced probe carries into the boundary. Used only by the battery, after the gate
 * has refused the same action, so the sandbox itself is what is tested (as tests/toolhost do).
 */
const DANGEROUSLY_FORCED: AllowDecision = {
  decision: 'allow',
  tier: 'T1',
  approver: null,
  code: null,
  rule: 'acceptance.forced',
  reasons: ['forced past the gate by `oracle acceptance` to test the sandbox on its own'],
};

/** `sh probe.sh MODE ...` in the battery's project, as an agent would send it. */
export function probeAction(subject: Subject, words: readonly string[], extra: { readonly session?: string; readonly timeout?: number } = {}): Record<string, unknown> {
  return {
    tool: 'exec.run',
    args: { program: 'sh', args: [PROBE_SCRIPT, ...words], cwd: subject.project, timeout: extra.timeout ?? 30 },
    ...(extra.session === undefined ? {} : { session: extra.session }),
  };
}

/**
 * The same action straight into the execution boundary, with the arguments the gate resolved
 * (the pinned program, the canonical working directory), as if a person had let it through.
 */
export async function dangerouslyForcePastGate(subject: Subject, action: unknown): Promise<ExecutionResult> {
  const judged = subject.judge(action);
  if (judged.tool === null || !isToolName(judged.tool) || judged.args === null || typeof judged.args['program_path'] !== 'string') {
    throw new Error(`the gate did not resolve the probe's program, so it cannot be forced through the boundary (${judged.decision.code ?? judged.decision.decision})`);
  }
  const executed = await subject.dangerouslyExecute(prepareAction(judged.tool, judged.args, { actionId: `acceptance-forced-${judged.tool}`, paths: judged.paths, decision: DANGEROUSLY_FORCED }));
  if (executed.cleanupError !== undefined) throw new Error(`the forced job's directory was not removed: ${executed.cleanupError}`);
  return executed.result;
}

/** `deny T4 PATH_DENY_ALWAYS (deny_always.oracle_home), not executed`. */
export function describeDecision(r: RunResult): string {
  const code = r.code === null ? '' : ` ${r.code}`;
  const ran = r.executed ? 'EXECUTED' : 'not executed';
  const why = r.reasons.length === 0 ? '' : `: ${r.reasons.at(-1) ?? ''}`;
  return `${r.decision} ${r.tier}${code} (${r.rule}), ${ran}${why}`;
}

/** A one-line account of what a job printed and how it ended, bounded. */
export function describeJob(r: Pick<ExecutionResult, 'exit_code' | 'stdout' | 'stderr' | 'error' | 'sandbox'>): string {
  const out = oneLine(r.stdout ?? '', 400);
  const err = oneLine(r.stderr ?? '', 200);
  const ending = r.error === undefined ? `exit ${String(r.exit_code ?? 'none')}` : `${r.error.code}: ${oneLine(r.error.message, 160)}`;
  return `sandbox ${r.sandbox ?? 'unknown'}, ${ending}; stdout: ${out === '' ? '(empty)' : out}${err === '' ? '' : `; stderr: ${err}`}`;
}

export function oneLine(text: string, max: number): string {
  const flat = text.trim().replace(/\s*\n\s*/gu, ' | ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** Lines of a probe's stdout that start with `word`, the rest of each line. */
export function linesOf(stdout: string | undefined, word: string): string[] {
  return (stdout ?? '')
    .split('\n')
    .filter((l) => l === word || l.startsWith(`${word} `))
    .map((l) => l.slice(word.length).trim());
}

/** Did the probe script run at all? Without this line every "denied" below it is meaningless. */
export function probeRan(r: Pick<ExecutionResult, 'stdout'>): boolean {
  return linesOf(r.stdout, 'PROBE-RAN').length > 0;
}

export function evidence(check: string, tried: string, observed: string, outcome: Outcome): Evidence {
  return { check, tried, observed, outcome };
}

/** The gate layer: an agent's action that must not run. `deny` demands a refusal outright. */
export function gateRefused(check: string, tried: string, r: RunResult, want: 'deny' | 'not-allow'): Evidence {
  const ok = !r.executed && (want === 'deny' ? r.decision === 'deny' : r.decision !== 'allow');
  return evidence(check, tried, describeDecision(r), ok ? OUTCOME.held : OUTCOME.broken);
}

/** Polls `probe` every 25 ms until it returns a value or `ms` pass. */
export async function until<T>(probe: () => T | undefined, ms: number): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}
