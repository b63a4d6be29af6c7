import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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
    const tmp = `${this.path}.${String(process.pid)}.tmp`;
    writeFileSync(tmp, JSON.stringify(state), { mode: 0o600 });
    const fd = openSync(tmp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
    const dir = openSync(dirname(this.path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  }
}
