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
  };
}

/** Who may lift a HALT: never a phone, never an agent (SPEC §8, §9 profiles). */
export function mayResume(by: string): boolean {
  return by === 'cli' || by === 'desktop';
}
