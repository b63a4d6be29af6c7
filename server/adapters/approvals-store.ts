import { existsSync, readFileSync } from 'node:fs';
import { parseHomeJson } from './home-file-error.js';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.js';
import type { Approval } from '../core/approvals/approval.js';
import type { RememberedRule } from '../core/approvals/remember.js';
import type { RuntimeState } from '../core/decide/context.js';

export interface PersistedState {
  readonly approvals: readonly Approval[];
  readonly remembered: readonly RememberedRule[];
  readonly sessions: Readonly<Record<string, RuntimeState>>;
  /** What each waiting action asked, so a continuation survives a restart (never sent to devices). */
  readonly requests: Readonly<Record<string, WaitingRequest>>;
}

export interface WaitingRequest {
  readonly action: unknown;
  readonly agent: string | null;
  readonly action_id: string;
}

const EMPTY: PersistedState = { approvals: [], remembered: [], sessions: {}, requests: {} };

/**
 * `<home>/data/approvals.json`: pending and granted approvals, remembered rules and session taint,
 * rewritten atomically (temp, fsync, rename, directory fsync) on every change, so a restart loses
 * no pending or granted approval and no taint (SPEC §7).
 */
export class ApprovalsFile {
  readonly path: string;
  constructor(dataDir: string) {
    this.path = join(dataDir, 'approvals.json');
  }

  load(): PersistedState {
    if (!existsSync(this.path)) return EMPTY;
    const parsed = parseHomeJson(
      this.path,
      readFileSync(this.path, 'utf8'),
      (v): v is Partial<PersistedState> => typeof v === 'object' && v !== null && !Array.isArray(v) && (!('approvals' in v) || Array.isArray(v.approvals)),
      'move it away to start with no pending approvals (what was waiting then never runs)',
    );
    return { approvals: parsed.approvals ?? [], remembered: parsed.remembered ?? [], sessions: parsed.sessions ?? {}, requests: parsed.requests ?? {} };
  }

  save(state: PersistedState): void {
    writeFileAtomic(this.path, JSON.stringify(state));
  }

}
