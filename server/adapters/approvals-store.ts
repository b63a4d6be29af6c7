import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.js';
import type { Approval } from '../core/approvals/approval.js';
import type { RememberedRule } from '../core/approvals/remember.js';
import type { RuntimeState } from '../core/decide/context.js';

export interface PersistedState {
  readonly approvals: readonly Approval[];
  readonly remembered: readonly RememberedRule[];
  readonly sessions: Readonly<Record<string, RuntimeState>>;
}

const EMPTY: PersistedState = { approvals: [], remembered: [], sessions: {} };

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
    const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as Partial<PersistedState>;
    return { approvals: parsed.approvals ?? [], remembered: parsed.remembered ?? [], sessions: parsed.sessions ?? {} };
  }

  save(state: PersistedState): void {
    writeFileAtomic(this.path, JSON.stringify(state));
  }

}
