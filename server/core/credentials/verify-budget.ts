/**
 * What failed credential checks may cost (issue 14 point 2): an id is not secret (token prefixes,
 * the devices list, the audit log name it), so a wrong secret for a real id must not buy a full
 * Argon2id hash every time. Each id and each client address gets a token bucket of verifications;
 * a secret that just failed for an id is remembered by its digest for a while, so repeating it
 * costs nothing. Pure: the clock is passed in. A verified credential is cached elsewhere and
 * costs no budget at all, so a legitimate agent spends one verification after a restart.
 */
export interface BucketSpec {
  /** Verifications available at once. */
  readonly burst: number;
  /** One more becomes available every this many milliseconds. */
  readonly refillMs: number;
}

export interface BudgetSpec {
  readonly perId: BucketSpec;
  readonly perAddress: BucketSpec;
  /** How long a failed secret's digest is refused without hashing. */
  readonly negativeTtlMs: number;
  /** Bound on remembered ids, addresses and failed digests (oldest dropped first). */
  readonly maxEntries: number;
}

export const DEFAULT_BUDGET: BudgetSpec = {
  perId: { burst: 3, refillMs: 10_000 },
  perAddress: { burst: 10, refillMs: 2_000 },
  negativeTtlMs: 10 * 60_000,
  maxEntries: 10_000,
};

interface Bucket {
  tokens: number;
  at: number;
}

export class VerifyBudget {
  private readonly ids = new Map<string, Bucket>();
  private readonly addresses = new Map<string, Bucket>();
  private readonly failed = new Map<string, number>();

  constructor(
    private readonly spec: BudgetSpec,
    private readonly now: () => number,
  ) {}

  /** Spends one verification for this id from this address; false when either is out of budget. */
  take(id: string, address: string): boolean {
    const t = this.now();
    const byId = this.refill(this.ids, id, this.spec.perId, t);
    const byAddress = this.refill(this.addresses, address, this.spec.perAddress, t);
    // INVARIANT: both must have a token; neither is spent unless both are.
    if (byId.tokens < 1 || byAddress.tokens < 1) return false;
    byId.tokens -= 1;
    byAddress.tokens -= 1;
    return true;
  }

  /** Whether this secret (by its digest) failed for this id within the negative TTL. */
  knownBad(id: string, digest: string): boolean {
    const key = `${id}\u0000${digest}`;
    const until = this.failed.get(key);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.failed.delete(key);
    return false;
  }

  rememberBad(id: string, digest: string): void {
    const key = `${id}\u0000${digest}`;
    this.failed.delete(key);
    this.failed.set(key, this.now() + this.spec.negativeTtlMs);
    bound(this.failed, this.spec.maxEntries);
  }

  private refill(map: Map<string, Bucket>, key: string, spec: BucketSpec, t: number): Bucket {
    let bucket = map.get(key);
    if (bucket === undefined) {
      bucket = { tokens: spec.burst, at: t };
      map.set(key, bucket);
      bound(map, this.spec.maxEntries);
    } else {
      bucket.tokens = Math.min(spec.burst, bucket.tokens + Math.max(0, t - bucket.at) / spec.refillMs);
      bucket.at = t;
    }
    return bucket;
  }
}

/** Maps keep insertion order: past the bound, the oldest entries go. */
function bound(map: Map<string, unknown>, max: number): void {
  for (const key of map.keys()) {
    if (map.size <= max) return;
    map.delete(key);
  }
}
