import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { OracleError } from '../../shared/oracle-error.js';

/** How long a writer waits for another process's change to the same file before it gives up. */
const WAIT_MS = 5000;
const STEP_MS = 2;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * One read-modify-write of a small state file at a time across processes (the gate and the CLI
 * both change credentials.json). Without it a write that read the file before another process's
 * rename and renamed after it put the old record back: red team, session 32, an `oracle devices
 * revoke` printed "revoked" and the phone kept its rights. The lock file appears with its owner's
 * pid already in it (a hard link of a written file), so it is never read empty; a lock whose
 * process is gone is taken over. Synchronous, like the writes it guards: they take milliseconds.
 */
export function withFileLock<T>(path: string, change: () => T): T {
  const lock = `${path}.lock`;
  const mine = `${String(process.pid)} ${randomBytes(6).toString('hex')}\n`;
  const staged = `${lock}.${String(process.pid)}.${randomBytes(6).toString('hex')}`;
  writeFileSync(staged, mine, { mode: 0o600 });
  try {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      try {
        linkSync(staged, lock);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      if (!holderAlive(lock)) {
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new OracleError('HOME_IN_USE', `\`${path}\` is being changed by another process (its lock \`${lock}\` stayed held for ${String(WAIT_MS / 1000)} s); try again`);
      Atomics.wait(pause, 0, 0, STEP_MS);
    }
  } finally {
    rmSync(staged, { force: true });
  }
  try {
    return change();
  } finally {
    // INVARIANT: only this holder's own lock is removed, never one a stale takeover gave another.
    if (readOwner(lock) === mine) rmSync(lock, { force: true });
  }
}

function readOwner(lock: string): string | undefined {
  try {
    return readFileSync(lock, 'utf8');
  } catch {
    return undefined;
  }
}

function holderAlive(lock: string): boolean {
  const owner = readOwner(lock);
  if (owner === undefined) return true; // gone between the link and now: try again
  const pid = Number(owner.split(' ')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
