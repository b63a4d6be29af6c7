import { join } from 'node:path';
import { jsonObjectLine, JsonlJournal } from './jsonl-journal.js';
import { HomeFileError } from './home-file-error.js';
import type { RuntimeState } from '../core/decide/context.js';
import { PROVENANCE_KINDS } from '../../shared/provenance.js';

/** A journal this long is folded into one line per session the next time it opens. */
const COMPACT_AT_OPEN = 500;
const FIX = 'move it away to start with every session clean (their taint is then forgotten)';

/**
 * `<home>/data/taint.journal`: which sessions read foreign or external content (SPEC §4), one JSON
 * line per change (`{"session":…,"state":…}`), appended with one fsync, so a restart forgets no
 * taint. Replaying a line twice is harmless (each sets the session's whole state); a torn last
 * line (a crash mid-append) is dropped. Long journals are folded at open.
 */
export class TaintFile {
  readonly path: string;
  private readonly journal: JsonlJournal;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'taint.journal');
    this.journal = new JsonlJournal(this.path);
  }

  exists(): boolean {
    return this.journal.exists();
  }

  load(): Record<string, RuntimeState> {
    const lines = this.journal.lines();
    const sessions = new Map<string, RuntimeState>();
    lines.forEach((line, i) => {
      const change = parseLine(line);
      if (change === undefined) throw new HomeFileError(this.path, `line ${String(i + 1)} is not a taint record ORACLE writes`, FIX);
      sessions.set(change.session, change.state);
    });
    if (lines.length >= COMPACT_AT_OPEN && lines.length > sessions.size) this.journal.replace([...sessions].map(([session, state]) => ({ session, state })));
    return Object.fromEntries(sessions);
  }

  /** Durable when this returns. */
  save(session: string, state: RuntimeState): void {
    this.journal.append([{ session, state }]);
  }

  create(): void {
    this.journal.create();
  }

  close(): void {
    this.journal.close();
  }
}

const KINDS = new Set<string>(PROVENANCE_KINDS);

function parseLine(line: string): { session: string; state: RuntimeState } | undefined {
  const value = jsonObjectLine(line);
  if (value === undefined) return undefined;
  const { session, state } = value;
  if (typeof session !== 'string' || typeof state !== 'object' || state === null) return undefined;
  const { tainted, provenance } = state as { tainted?: unknown; provenance?: unknown };
  if (typeof tainted !== 'boolean' || !Array.isArray(provenance)) return undefined;
  const entries = provenance.every((p: unknown) => typeof p === 'object' && p !== null && KINDS.has(String((p as { kind?: unknown }).kind)) && typeof (p as { source?: unknown }).source === 'string');
  return entries ? { session, state: { tainted, provenance: provenance as RuntimeState['provenance'] } } : undefined;
}
