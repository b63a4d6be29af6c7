import type { ProvenanceEntry } from '../../shared/provenance.js';
import type { RuntimeState } from '../core/decide/context.js';
import { afterReading, CLEAN } from '../core/decide/taint.js';

/** Where the ledger keeps what it knows (adapters/taint-store.ts: `data/taint.journal`). */
export interface TaintStore {
  /** Whether the journal is there (a home opened since the ledger came). */
  exists(): boolean;
  load(): Record<string, RuntimeState>;
  /** Durable when it returns. */
  save(session: string, state: RuntimeState): void;
  /** Makes the (empty) journal, so a home's first open is known to be done. */
  create(): void;
  close(): void;
}

/**
 * Which sessions read foreign or external content (SPEC §4 taint): sticky per session, kept in its
 * own journal so a restart forgets none. Judging never changes it: the lifecycle adds what an
 * action declared it read and what it read by running as steps of their own
 * (core/lifecycle/run-action.ts), and the hook adds what Claude Code's own tools read.
 */
export class TaintLedger {
  private readonly sessions = new Map<string, RuntimeState>();

  /**
   * `legacy`: what builds before the ledger kept beside the approvals (approvals.json), read and
   * adopted on the first open of a home that has no journal yet, never again.
   */
  constructor(
    private readonly store: TaintStore,
    legacy: () => Readonly<Record<string, RuntimeState>> = () => ({}),
  ) {
    if (!store.exists()) {
      for (const [id, s] of Object.entries(legacy())) if (s.tainted) store.save(id, s);
      if (!store.exists()) store.create();
    }
    for (const [id, s] of Object.entries(store.load())) this.sessions.set(id, s);
  }

  /** A session's taint (clean when unknown or unnamed). */
  state(session: string | undefined): RuntimeState {
    return (session === undefined ? undefined : this.sessions.get(session)) ?? CLEAN;
  }

  /** What a session read joins its taint (persisted before this returns, when it changed anything). */
  read(session: string | undefined, read: readonly ProvenanceEntry[]): void {
    if (session === undefined || read.length === 0) return;
    const next = afterReading(this.state(session), read);
    if (next === undefined) return;
    this.sessions.set(session, next);
    this.store.save(session, next);
  }

  close(): void {
    this.store.close();
  }
}
