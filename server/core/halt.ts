/**
 * HALT (SPEC §8): deny-all that survives restarts and lifts only by an explicit resume from the
 * desktop or the CLI. The state is data; the file that holds it is an adapter.
 */
export interface HaltRecord {
  readonly reason: string;
  readonly at: string;
  /** Who halted: `cli`, `desktop`, a device id, the API. */
  readonly by: string;
  /** What was in flight when it stopped. */
  readonly snapshot: {
    readonly running_processes: number;
    readonly in_flight: readonly string[];
    /** What HALT reached of the agents' own processes (their tool calls' process trees). */
    readonly agent_processes?: { readonly supported: boolean; readonly agents: number; readonly killed: number };
    /** Lock files of git processes the HALT killed, as it found them; removed at resume while unchanged. */
    readonly git_locks?: readonly { readonly path: string; readonly version: string }[];
  };
}

/** Who may lift a HALT: never a phone, never an agent (SPEC §8, §9 profiles). */
export function mayResume(by: string): boolean {
  return by === 'cli' || by === 'desktop';
}

/**
 * The abort reason of an action HALT stopped in flight (app/runtime.ts): a job is killed as
 * HALTED, a fetch stops, and an executor of several steps starts nothing after it (red team,
 * session 33: a git.commit's add and commit ran after HALT had killed its first step).
 */
export const HALT_ABORT = 'oracle-halt';

/** Why an aborted action stopped: HALT, or its caller going away. */
export const abortedBy = (signal: AbortSignal | undefined): 'halt' | 'cancelled' => (signal?.reason === HALT_ABORT ? 'halt' : 'cancelled');
