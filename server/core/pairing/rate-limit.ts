/**
 * Per-address limit on the pairing endpoints (SPEC §9: "pairing endpoints are rate limited per
 * address"): at most `max` requests in any sliding `windowMs`. Pure; the clock is passed in.
 * The table is bounded: when it is full of active addresses, new addresses are refused (deny
 * when in doubt) rather than evicting someone's history.
 */
export interface RateLimit {
  readonly max: number;
  readonly windowMs: number;
}

export const PAIRING_RATE_LIMIT: RateLimit = { max: 10, windowMs: 60_000 };
const MAX_ADDRESSES = 4096;

export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number,
  ) {}

  /** Counts this request and says whether it may proceed. */
  allow(address: string): boolean {
    const now = this.now();
    const since = now - this.limit.windowMs;
    const recent = (this.hits.get(address) ?? []).filter((t) => t > since);
    if (!this.hits.has(address) && this.hits.size >= MAX_ADDRESSES) {
      this.prune(since);
      if (this.hits.size >= MAX_ADDRESSES) return false;
    }
    if (recent.length >= this.limit.max) {
      this.hits.set(address, recent);
      return false;
    }
    recent.push(now);
    this.hits.set(address, recent);
    return true;
  }

  private prune(since: number): void {
    for (const [address, times] of this.hits) if (!times.some((t) => t > since)) this.hits.delete(address);
  }
}
