import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { OracleError } from '../../shared/oracle-error.js';

/**
 * How long a writer waits for another process's change to the same file before it gives up. The
 * wait blocks the event loop (the writes it guards are synchronous), so it is short.
 */
const WAIT_MS = 1000;
const STEP_MS = 2;
/**
 * A lock older than this is stale whoever it names: a change under it takes milliseconds, and a
 * lock naming a live pid that is not changing anything (a same-user process that wrote one) must
 * not hold every later change off (review round 2, session 32: it blocked a phone's HALT).
 */
const STALE_MS = 2000;
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
      const left = staleOwner(lock);
      if (left !== undefined) {
        // Taken over by renaming it away first: of two writers that both found it stale, only one
        // rename succeeds. If what was renamed is not the lock judged stale (another writer took it
        // over in between and made its own), it is put back.
        const aside = `${staged}.stale`;
        try {
          renameSync(lock, aside);
          if (readOwner(aside) !== left) linkSync(aside, lock);
        } catch {
          // another writer took it over first, or made a lock of its own meanwhile
        }
        rmSync(aside, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new OracleError('HOME_IN_USE', `\`${path}\` is being changed by another process (its lock \`${lock}\` stayed held for ${String(WAIT_MS)} ms); try again`);
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

/**
 * The owner line of a lock that is left over (its process is gone, it names none, or it is older
 * than STALE_MS), or undefined while it is live or gone.
 */
function staleOwner(lock: string): string | undefined {
  const owner = readOwner(lock);
  if (owner === undefined) return undefined; // gone between the link and now: try again
  const born = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
  if (born !== undefined && Date.now() - born > STALE_MS) return owner;
  const pid = Number(owner.split(' ')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return owner;
  try {
    process.kill(pid, 0);
    return undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? undefined : owner;
  }
}
