import { randomBytes, timingSafeEqual } from 'node:crypto';

const CODE_TTL_MS = 10 * 60 * 1000;

/**
 * Desktop login (SPEC §9): `oracle serve` prints a loopback link with a one-time code; spending it
 * gives a session held only in this process's memory (a restart means a new link).
 */
export class DesktopSessions {
  private code: { value: Buffer; expires: number } | undefined;
  private readonly sessions = new Set<string>();
  /**
   * The desktop's own CLI (`oracle pair`) signs in with this, read from `<home>/data` (0700), which
   * only the user and ORACLE can read (the gate denies agents ORACLE's home).
   */
  readonly localToken = randomBytes(32).toString('base64url');

  /** A fresh one-time code; any earlier one stops working. */
  mintCode(now = Date.now()): string {
    const value = randomBytes(24).toString('base64url');
    this.code = { value: Buffer.from(value), expires: now + CODE_TTL_MS };
    return value;
  }

  exchange(code: string, now = Date.now()): string | undefined {
    const current = this.code;
    if (current === undefined || now > current.expires) return undefined;
    const given = Buffer.from(code);
    if (given.length !== current.value.length || !timingSafeEqual(given, current.value)) return undefined;
    this.code = undefined; // single use
    const session = randomBytes(32).toString('base64url');
    this.sessions.add(session);
    return session;
  }

  valid(session: string | undefined): boolean {
    return session !== undefined && this.sessions.has(session);
  }

  validLocal(token: string): boolean {
    const a = Buffer.from(token);
    const b = Buffer.from(this.localToken);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
