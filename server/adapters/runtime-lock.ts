import { OracleError } from '../../shared/oracle-error.js';
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One gate process per home: the audit log is one hash chain, and two writers would fork it. A
 * lock file holds the owner's pid; a lock whose process is gone is stale and taken over.
 */
/** Locks this process holds (a second runtime in the same process is refused too). */
const held = new Set<string>();

export class RuntimeLock {
  private constructor(readonly path: string) {}

  /** The pid of a live process holding the home, if any. */
  static holder(dataDir: string): number | undefined {
    try {
      const pid = Number(readFileSync(join(dataDir, 'runtime.lock'), 'utf8').trim());
      if (!Number.isInteger(pid) || pid <= 0) return undefined;
      process.kill(pid, 0);
      return pid;
    } catch {
      return undefined;
    }
  }

  static acquire(dataDir: string): RuntimeLock {
    const path = join(dataDir, 'runtime.lock');
    if (held.has(path)) throw new LockedError(process.pid);
    for (let attempt = 0; attempt < 2; attempt++) {
      // INVARIANT: the lock file appears with the pid already in it (a hard link of a written file is
      // atomic), so no other process can ever read it empty and take it for a stale lock.
      const staged = `${path}.${String(process.pid)}.${randomBytes(6).toString('hex')}`;
      try {
        writeFileSync(staged, `${String(process.pid)}\n`, { mode: 0o600 });
        linkSync(staged, path);
        held.add(path);
        return new RuntimeLock(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const holder = RuntimeLock.holder(dataDir);
        if (holder !== undefined && holder !== process.pid) throw new LockedError(holder);
        rmSync(path, { force: true }); // stale: its process is gone
      } finally {
        rmSync(staged, { force: true });
      }
    }
    throw new LockedError(0);
  }

  release(): void {
    held.delete(this.path);
    rmSync(this.path, { force: true });
  }
}

export class LockedError extends OracleError<'HOME_IN_USE'> {
  constructor(readonly pid: number) {
    super('HOME_IN_USE', `another ORACLE process (pid ${String(pid)}) is running with this home; one gate per home keeps the audit chain whole`);
  }
}
