import type { RunResult } from '../core/lifecycle/run-action.js';

/** How long a continued action's result can be asked for again, and how many are kept. */
const KEEP_MS = 10 * 60_000;
const MAX_KEPT = 32;

/**
 * The results of actions that ran after a person answered, kept a while for the agent that
 * waited on them: a caller cut off mid-wait (an MCP client's own request timeout, a dropped
 * connection) asks again and gets what happened instead of "unknown approval". Bounded in count
 * and time (a result may hold a program's output); only the same agent gets one back.
 */
export class FinishedResults {
  private readonly kept = new Map<string, { readonly agent: string | undefined; readonly result: RunResult; readonly until: number }>();

  keep(approvalId: string, agent: string | undefined, result: RunResult, now: Date): void {
    this.prune(now);
    this.kept.delete(approvalId);
    this.kept.set(approvalId, { agent, result, until: now.getTime() + KEEP_MS });
    // The oldest goes first: a Map iterates in insertion order.
    for (const id of this.kept.keys()) {
      if (this.kept.size <= MAX_KEPT) break;
      this.kept.delete(id);
    }
  }

  get(approvalId: string, agent: string | undefined, now: Date): RunResult | undefined {
    this.prune(now);
    const entry = this.kept.get(approvalId);
    return entry === undefined || entry.agent !== agent ? undefined : entry.result;
  }

  private prune(now: Date): void {
    for (const [id, entry] of this.kept) if (entry.until <= now.getTime()) this.kept.delete(id);
  }
}
