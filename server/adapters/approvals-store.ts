import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.js';
import { HomeFileError, parseHomeJson } from './home-file-error.js';
import { jsonObjectLine, JsonlJournal } from './jsonl-journal.js';
import type { Approval } from '../core/approvals/approval.js';
import type { RememberedRule } from '../core/approvals/remember.js';
import type { RuntimeState } from '../core/decide/context.js';

export interface PersistedState {
  readonly approvals: readonly Approval[];
  readonly remembered: readonly RememberedRule[];
  /** Session taint as builds before the taint ledger kept it here: read once by the ledger (app/taint-ledger.ts), written empty. */
  readonly sessions: Readonly<Record<string, RuntimeState>>;
  /** What each waiting action asked, so a continuation survives a restart (never sent to devices). */
  readonly requests: Readonly<Record<string, WaitingRequest>>;
}

export interface WaitingRequest {
  readonly action: unknown;
  readonly agent: string | null;
  readonly action_id: string;
}

/** One change to the desk's state, as the journal keeps it: each sets a value (replaying twice is harmless). */
export type Change =
  | { readonly op: 'approval'; readonly value: Approval }
  | { readonly op: 'rules'; readonly value: readonly RememberedRule[] }
  | { readonly op: 'session'; readonly id: string; readonly value: RuntimeState }
  | { readonly op: 'request'; readonly id: string; readonly value: WaitingRequest | null };

const EMPTY: PersistedState = { approvals: [], remembered: [], sessions: {}, requests: {} };
const FIX = 'move it away to start with no pending approvals (what was waiting then never runs)';

/**
 * `<home>/data/approvals.json` (a snapshot, replaced atomically) and `approvals.journal` (the
 * changes since, one JSON line each, appended with one fsync): a restart loses no pending or
 * granted approval (SPEC §7), and a change costs one small append however many
 * approvals wait (issue 14: no whole-file rewrite per change). `compact` folds the journal in.
 */
export class ApprovalsFile {
  readonly path: string;
  readonly journalPath: string;
  private readonly journal: JsonlJournal;
  /** Changes appended since the last compaction. */
  private entries = 0;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'approvals.json');
    this.journalPath = join(dataDir, 'approvals.journal');
    this.journal = new JsonlJournal(this.journalPath);
  }

  get journalLength(): number {
    return this.entries;
  }

  /** The snapshot with every journalled change applied; a torn last line (a crash mid-append) is dropped. */
  load(): PersistedState {
    const snapshot = existsSync(this.path) ? this.snapshot() : EMPTY;
    if (!this.journal.exists()) return snapshot;
    const approvals = new Map(snapshot.approvals.map((a) => [a.approval_id, a]));
    let remembered = snapshot.remembered;
    const sessions = new Map(Object.entries(snapshot.sessions));
    const requests = new Map(Object.entries(snapshot.requests));
    const complete = this.journal.lines();
    this.entries = complete.length;
    complete.forEach((line, i) => {
      const change = parseChange(line);
      if (change === undefined) throw new HomeFileError(this.journalPath, `line ${String(i + 1)} is not a change ORACLE writes`, FIX);
      if (change.op === 'approval') approvals.set(change.value.approval_id, change.value);
      else if (change.op === 'rules') remembered = change.value;
      else if (change.op === 'session') sessions.set(change.id, change.value);
      else if (change.value === null) requests.delete(change.id);
      else requests.set(change.id, change.value);
    });
    return { approvals: [...approvals.values()], remembered, sessions: Object.fromEntries(sessions), requests: Object.fromEntries(requests) };
  }

  /** Appends changes with one write and one fsync; durable when this returns. */
  append(changes: readonly Change[]): void {
    this.journal.append(changes);
    this.entries += changes.length;
  }

  /** A new snapshot of the whole state, then an empty journal (a crash between the two replays harmlessly). */
  compact(state: PersistedState): void {
    writeFileAtomic(this.path, JSON.stringify(state));
    this.journal.clear();
    this.entries = 0;
  }

  close(): void {
    this.journal.close();
  }

  private snapshot(): PersistedState {
    const parsed = parseHomeJson(
      this.path,
      readFileSync(this.path, 'utf8'),
      (v): v is Partial<PersistedState> => typeof v === 'object' && v !== null && !Array.isArray(v) && (!('approvals' in v) || Array.isArray(v.approvals)),
      FIX,
    );
    return { approvals: parsed.approvals ?? [], remembered: parsed.remembered ?? [], sessions: parsed.sessions ?? {}, requests: parsed.requests ?? {} };
  }
}

function parseChange(line: string): Change | undefined {
  const value = jsonObjectLine(line);
  if (value === undefined) return undefined;
  const c = value as { op?: unknown; id?: unknown; value?: unknown };
  const object = typeof c.value === 'object' && c.value !== null;
  switch (c.op) {
    case 'approval':
      return object && typeof (c.value as { approval_id?: unknown }).approval_id === 'string' ? (value as Change) : undefined;
    case 'rules':
      return Array.isArray(c.value) ? (value as Change) : undefined;
    case 'session':
      return typeof c.id === 'string' && object ? (value as Change) : undefined;
    case 'request':
      return typeof c.id === 'string' && (object || c.value === null) ? (value as Change) : undefined;
    default:
      return undefined;
  }
}
