import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Job {
  readonly id: string;
  readonly dir: string;
}

const BLOCKED = 'BLOCKED';

/**
 * Per-job directories (SPEC §6, seed 000 D-O5-2): a job root others may traverse but not list
 * (0711), one directory per job under an unguessable 128-bit id (0700), removed fail-closed. If a
 * job directory cannot be removed, the root is blocked (a marker file that survives restarts) and
 * no new job starts in it until a person looks.
 */
export class JobRoot {
  /** Kept in memory too, in case the marker itself could not be written. */
  private failure: string | undefined;

  private constructor(
    readonly dir: string,
    private readonly owner: { readonly uid: number; readonly gid: number } | undefined,
  ) {}

  /** `owner`: the account jobs run as when it is not the gate's (root's dedicated job account): each job directory is given to it. */
  static open(dir: string, owner?: { readonly uid: number; readonly gid: number }): JobRoot {
    mkdirSync(dir, { recursive: true, mode: 0o711 });
    chmodSync(dir, 0o711);
    return new JobRoot(dir, owner);
  }


  /** Why new jobs are refused, or undefined when they may start. */
  blockedReason(): string | undefined {
    if (this.failure !== undefined) return this.failure;
    const marker = join(this.dir, BLOCKED);
    return existsSync(marker) ? readFileSync(marker, 'utf8').trim() || 'a job directory could not be removed' : undefined;
  }

  /** `restricted`: the job runs as the job account (when there is one), which then owns its directory. */
  create(restricted = true): Job {
    const id = randomBytes(16).toString('hex');
    const dir = join(this.dir, id);
    mkdirSync(dir, { mode: 0o700 });
    mkdirSync(join(dir, 'tmp'), { mode: 0o700 });
    if (restricted) {
      this.giveToJob(dir);
      this.giveToJob(join(dir, 'tmp'));
    }
    return { id, dir };
  }

  /** A file or folder the gate made for a restricted job: the job account's, when there is one. */
  giveToJob(path: string): void {
    if (this.owner !== undefined) chownSync(path, this.owner.uid, this.owner.gid);
  }

  /** Removes the job directory; on failure blocks the root and says why. */
  remove(job: Job): { ok: true } | { ok: false; reason: string } {
    try {
      // A job may leave directories it made unreadable (`chmod 0`); give them back before removing.
      restoreOwnerAccess(job.dir);
      rmSync(job.dir, { recursive: true, force: true, maxRetries: 2 });
      if (existsSync(job.dir)) throw new Error('the directory is still there');
      return { ok: true };
    } catch (e) {
      const reason = `job ${job.id} could not be removed: ${e instanceof Error ? e.message : 'unknown error'}`;
      this.failure = reason;
      try {
        writeFileSync(join(this.dir, BLOCKED), `${reason}\n`, { mode: 0o600 });
      } catch {
        // The marker is best effort; the caller audits the failure and refuses new jobs anyway.
      }
      return { ok: false, reason };
    }
  }
}

/** chmod u+rwx on every directory of the tree, never following a link. */
function restoreOwnerAccess(dir: string): void {
  try {
    if (!lstatSync(dir).isDirectory()) return;
    chmodSync(dir, 0o700);
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) restoreOwnerAccess(join(dir, entry.name));
  } catch {
    // What cannot be fixed here makes the removal fail, which blocks the root as it should.
  }
}
