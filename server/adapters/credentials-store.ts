import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Buffer } from './sha256.js';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { OracleError } from '../../shared/oracle-error.js';
import { writeFileAtomic } from './atomic-file.js';
import { withFileLock } from './file-lock.js';
import { parseHomeJson } from './home-file-error.js';
import argon2 from 'argon2';
import { formatToken, type ParsedToken, type TokenKind } from '../core/credentials/token.js';
import { DEFAULT_BUDGET, VerifyBudget } from '../core/credentials/verify-budget.js';

/** OWASP's Argon2id minimum (m=19 MiB, t=2, p=1). */
const ARGON2 = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export interface CredentialRecord {
  readonly id: string;
  readonly kind: TokenKind;
  /** For agents: the policy principal; for devices: the name the person gave it. */
  readonly name: string;
  readonly hash: string;
  readonly created_at: string;
  readonly revoked_at: string | null;
  /** Devices: the profile and the public key requests are signed with (SPEC §9). */
  readonly profile?: 'phone' | 'desktop';
  readonly public_key_jwk?: Readonly<Record<string, unknown>>;
  /** Devices: the highest request counter seen (replays are refused). */
  readonly counter?: number;
}

/**
 * Agent and device credentials in `<home>/data/credentials.json` (0600). Tokens are stored only
 * as Argon2id hashes. An unknown id is refused before any hashing, so junk costs nothing; a
 * verified token is cached (as a SHA-256, compared in constant time) so steady-state requests
 * cost microseconds; revoking drops the cache entry at once.
 */
export class CredentialStore {
  private records = new Map<string, CredentialRecord>();
  /** Counters accepted here and not yet known to be in the file: kept above whatever a reload reads. */
  private readonly counters = new Map<string, number>();
  private readonly verified = new Map<string, Buffer>();
  /** Argon2 verifications performed (for tests and the bench: junk must cost none). */
  hashCalls = 0;
  private readonly budget: VerifyBudget;
  private readonly inFlight = new Map<string, Promise<boolean>>();
  private argonQueue: Promise<unknown> = Promise.resolve();
  private failures = new Map<string, number>();

  /**
   * Which version of the file the records came from: inode, size and mtime. The mtime alone
   * missed a change written within one tick of the kernel's coarse clock (a revoke right after
   * an issue); each write is a rename, so a new inode, and a revoke changes the size too.
   */
  private loadedVersion = '';

  private constructor(
    readonly path: string,
    now: () => number,
  ) {
    this.budget = new VerifyBudget(DEFAULT_BUDGET, now);
    this.reload();
  }

  /** Whether the file was looked at in this turn of the event loop (see reload). */
  private lookedThisTurn = false;

  /**
   * `oracle agents add` writes the file from another process: pick new records up. A read
   * (verify, active, publicKey) looks at most once per turn of the event loop: the many requests
   * one turn hands over (a burst from 64 agents) share one stat, and a change from another
   * process is seen on the next turn. A write looks every time (`force`), so it never writes
   * back a view older than the file.
   */
  private reload(force = false): void {
    if (this.lookedThisTurn && !force) return;
    if (!this.lookedThisTurn) {
      this.lookedThisTurn = true;
      setImmediate(() => {
        this.lookedThisTurn = false;
      }).unref();
    }
    const stat = statSync(this.path, { throwIfNoEntry: false });
    if (stat === undefined) return;
    const version = versionOf(stat);
    // A write reads the file whatever its version says: what it writes back must hold every change.
    if (version === this.loadedVersion && !force) return;
    // Another process wrote the file: its view wins, including every revocation in it.
    this.loadedVersion = version;
    const list = parseHomeJson(this.path, readFileSync(this.path, 'utf8'), isRecordList, 'restore it from a backup, or move it away: agents then need `oracle integrate claude-code` (or `oracle agents add`) and phones pair again');
    const before = this.records;
    this.records = new Map(list.map((r) => [r.id, r]));
    // A counter this process accepted stays accepted, whatever the file says (see advanceCounter).
    for (const [id, counter] of this.counters) {
      const r = this.records.get(id);
      if (r !== undefined && (r.counter ?? 0) < counter) this.records.set(id, { ...r, counter });
      else this.counters.delete(id);
    }
    for (const [id] of this.verified) if (this.records.get(id)?.revoked_at !== null) this.verified.delete(id);
    // A revoke another process wrote (`oracle devices revoke`): told once, so the gate audits it.
    for (const [id, r] of this.records) if (r.revoked_at !== null && before.get(id)?.revoked_at === null) this.revokedElsewhere?.(r);
  }

  /** Called for each credential another process revoked, as this one first sees it. */
  revokedElsewhere: ((record: CredentialRecord) => void) | undefined;

  /** Whether a credential is still active (for long-lived streams). */
  active(id: string): boolean {
    this.reload();
    const r = this.records.get(id);
    return r !== undefined && r.revoked_at === null;
  }

  /** The public key a device signs with (JWK), if it is active. */
  publicKey(id: string): Readonly<Record<string, unknown>> | undefined {
    this.reload();
    const r = this.records.get(id);
    return r === undefined || r.revoked_at !== null ? undefined : r.public_key_jwk;
  }

  static open(dataDir: string, now: () => number = Date.now): CredentialStore {
    return new CredentialStore(join(dataDir, 'credentials.json'), now);
  }

  list(kind?: TokenKind): CredentialRecord[] {
    return [...this.records.values()].filter((r) => kind === undefined || r.kind === kind);
  }

  get(id: string): CredentialRecord | undefined {
    return this.records.get(id);
  }

  /** Creates a credential; the token is returned once and never stored. */
  async issue(kind: TokenKind, name: string, extra: Partial<Pick<CredentialRecord, 'profile' | 'public_key_jwk'>> = {}): Promise<{ id: string; token: string }> {
    const id = `${kind}_${randomBytes(8).toString('hex')}`;
    const secret = randomBytes(32).toString('base64url');
    const hash = await argon2.hash(secret, ARGON2);
    this.change(() => {
      this.records.set(id, { id, kind, name, hash, created_at: new Date().toISOString(), revoked_at: null, ...extra, ...(kind === 'dev' ? { counter: 0 } : {}) });
      return true;
    });
    return { id, token: formatToken(id, secret) };
  }

  revoke(id: string): boolean {
    return this.change(() => {
      const r = this.records.get(id);
      if (r === undefined || r.revoked_at !== null) return false;
      this.records.set(id, { ...r, revoked_at: new Date().toISOString() });
      this.verified.delete(id);
      return true;
    });
  }

  /**
   * Records a device's request counter; false when it does not strictly increase (a replay). The
   * check and the new value are this process's at once; writing them to the file follows, and if
   * another process holds the file (the CLI, or a lock planted to stall the gate) the value stays
   * in memory and is written with the next change. A signed HALT never waits on the file (review
   * round 2, session 32: a planted lock had made every signed request fail).
   */
  advanceCounter(id: string, counter: number): boolean {
    this.reload();
    const r = this.records.get(id);
    if (r === undefined || r.revoked_at !== null || Math.max(r.counter ?? 0, this.counters.get(id) ?? 0) >= counter) return false;
    this.counters.set(id, counter);
    this.records.set(id, { ...r, counter });
    try {
      this.change(() => true);
    } catch (e) {
      if (!(e instanceof OracleError) || e.code !== 'HOME_IN_USE') throw e;
    }
    return true;
  }

  /**
   * One change, made on the file as it is now and written back, with no other process's change
   * in between (the gate and the CLI both write this file): read, change, save under the lock.
   * `edit` returns whether it changed anything; nothing is written when it did not.
   */
  private change(edit: () => boolean): boolean {
    return withFileLock(this.path, () => {
      this.reload(true); // never write back a stale view over another process's change (a revoke)
      const changed = edit();
      if (changed) this.save();
      return changed;
    });
  }

  /**
   * A wrong secret for a real id costs at most one Argon2 hash per digest (then the negative
   * cache refuses it), within a per-id and per-address budget (core/credentials/verify-budget.ts);
   * one Argon2 hash runs at a time (libuv's four threads also carry every audit fsync), and the
   * same secret checked concurrently is hashed once.
   */
  async verify(token: ParsedToken, address = 'unknown'): Promise<CredentialRecord | undefined> {
    // A stat per turn of the event loop, never a hash: a revoke or an `oracle agents add` from
    // another process takes effect from the next turn.
    this.reload();
    const record = this.records.get(token.id);
    // INVARIANT: unknown or revoked ids are refused before any Argon2 work.
    if (record === undefined || record.revoked_at !== null || record.kind !== token.kind) return undefined;
    const digest = sha256Buffer(token.secret);
    const cached = this.verified.get(token.id);
    if (cached !== undefined) {
      if (timingSafeEqual(cached, digest)) return record;
      this.failedOnce(token.id);
      return undefined;
    }
    const key = digest.toString('hex');
    const flight = `${token.id}:${key}`;
    let pending = this.inFlight.get(flight);
    if (pending === undefined && (this.budget.knownBad(token.id, key) || !this.budget.take(token.id, address))) {
      this.failedOnce(token.id);
      return undefined;
    }
    if (pending === undefined) {
      pending = this.hashOne(record.hash, token.secret).finally(() => this.inFlight.delete(flight));
      this.inFlight.set(flight, pending);
    }
    if (!(await pending)) {
      this.budget.rememberBad(token.id, key);
      this.failedOnce(token.id);
      return undefined;
    }
    // Re-read: a revoke may have landed while the hash ran.
    if (this.records.get(token.id)?.revoked_at !== null) return undefined;
    this.verified.set(token.id, digest);
    return record;
  }

  /** Failed checks per id since the last `takeFailures` (audited in aggregate, not one by one). */
  takeFailures(): ReadonlyMap<string, number> {
    const out = this.failures;
    this.failures = new Map();
    return out;
  }

  private failedOnce(id: string): void {
    this.failures.set(id, (this.failures.get(id) ?? 0) + 1);
  }

  /** One Argon2 verification at a time, in arrival order. */
  private hashOne(hash: string, secret: string): Promise<boolean> {
    const run = this.argonQueue.then(async () => {
      this.hashCalls += 1;
      return argon2.verify(hash, secret).catch(() => false);
    });
    this.argonQueue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private save(): void {
    writeFileAtomic(this.path, JSON.stringify([...this.records.values()]));
    this.loadedVersion = versionOf(statSync(this.path));
  }

}

function versionOf(stat: { ino: number; size: number; mtimeMs: number }): string {
  return `${String(stat.ino)}:${String(stat.size)}:${String(stat.mtimeMs)}`;
}

function isRecordList(value: unknown): value is CredentialRecord[] {
  return Array.isArray(value) && value.every((r) => typeof r === 'object' && r !== null && typeof (r as CredentialRecord).id === 'string' && typeof (r as CredentialRecord).hash === 'string');
}
