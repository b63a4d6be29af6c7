import QRCode from 'qrcode';
import type { AuditBody } from '../core/audit/record.js';
import { toBase64Url } from '../../shared/pairing/bytes.js';
import type { PairingMode } from '../../shared/pairing/encoding.js';
import { PAIRING_RATE_LIMIT, RateLimiter, type RateLimit } from '../core/pairing/rate-limit.js';
import { PairingTable, type IssueDevice, type PairingCore, type PairingRefused, type SessionView } from '../core/pairing/registry.js';
import { pairingUrl } from '../../shared/pairing/url.js';
import { parseClaim, type ClaimReplyWire, type HelloRequest, type HelloWire, type ResultWire } from '../../shared/pairing/wire.js';

/**
 * What the pairing routes need (SPEC §9, §9a). The composition root builds it with
 * createPairingService and the adapters' functions; nothing here touches a file or a socket.
 */
export interface PairingService {
  /** Per-address limit on the unauthenticated pairing endpoints. */
  admit(address: string): Promise<boolean>;
  start(mode: PairingMode, desktopId: string): Promise<StartView | PairingRefused>;
  view(pid: string): SessionView | undefined;
  confirm(pid: string, accept: boolean, desktopId: string): Promise<SessionView | PairingRefused>;
  hello(req: HelloRequest, address: string): Promise<HelloWire | PairingRefused>;
  claim(body: unknown, address: string): Promise<ClaimReplyWire | PairingRefused | InputRefused>;
  result(input: { readonly pid: string; readonly proof: Uint8Array<ArrayBuffer> }, address: string, waitMs: number): Promise<ResultWire | PairingRefused>;
  /** Writes what the tally of refusals about no session holds now (the gate is stopping). */
  flush(): Promise<void>;
}

export type InputRefused = { readonly ok: false; readonly code: 'INPUT'; readonly reason: string };

/** What the desktop screen shows: the QR (SVG) and the code, with a countdown to expires_at. */
export interface StartView {
  readonly pid: string;
  readonly mode: PairingMode;
  readonly code: string;
  readonly expires_at: number;
  /** SHA-256 of the server SPKI, base64url: the pin the phone checks. */
  readonly k: string;
  /** QR mode: the pairing URL (its fragment carries s) and the same for the other addresses. */
  readonly url: string | null;
  readonly fallback_urls: readonly string[];
  readonly qr_svg: string | null;
  /** Typed mode: where the phone goes, and the code to type. */
  readonly origins: readonly string[];
}

export interface PairingServiceDeps {
  readonly core: PairingCore;
  /** `https://host:port` origins a phone can reach, the preferred one first. */
  readonly origins: () => readonly string[];
  /** Issues the device credential (profile phone, D.pub stored); the token is returned once. */
  readonly issueDevice: IssueDevice;
  /** Appends to the audit log; a rejection fails the request (fail closed, SPEC §1.2). */
  readonly audit: (body: AuditBody) => Promise<unknown>;
  readonly rateLimit?: RateLimit;
}

/** Long polls are capped so a phone's request never outlives a proxy's idle timeout. */
export const MAX_RESULT_WAIT_MS = 25_000;

export function createPairingService(deps: PairingServiceDeps): PairingService {
  const table = new PairingTable(deps.core);
  const limiter = new RateLimiter(deps.rateLimit ?? PAIRING_RATE_LIMIT, deps.core.now);
  const tally = new RefusalTally((body) => deps.audit({ kind: 'pairing', ts: ts(), actor: 'oracle', outcome: 'refused_many', code: null, detail: body }));
  const waiters = new Map<string, Set<() => void>>();
  const ts = () => new Date(deps.core.now()).toISOString();

  // Every failure and every success is audited (SPEC §9); codes, secrets, MACs and tokens never are.
  const audit = (actor: string, outcome: string, fields: { pid?: string | undefined; refusal?: PairingRefused | InputRefused; detail?: Record<string, unknown> }) =>
    deps.audit({
      kind: 'pairing',
      ts: ts(),
      actor,
      ...(fields.pid === undefined ? {} : { session: fields.pid }),
      outcome,
      code: fields.refusal?.code ?? null,
      ...(fields.refusal === undefined ? {} : { reasons: [fields.refusal.reason] }),
      ...(fields.detail === undefined ? {} : { detail: fields.detail }),
    });

  const wake = (pid: string) => {
    for (const w of waiters.get(pid) ?? []) w();
    waiters.delete(pid);
  };
  const waitFor = (pid: string, ms: number) =>
    new Promise<void>((resolve) => {
      const set = waiters.get(pid) ?? new Set<() => void>();
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && waiters.get(pid) === set) waiters.delete(pid);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
      waiters.set(pid, set);
    });

  return {
    admit(address) {
      if (limiter.allow(address)) return Promise.resolve(true);
      // Counted, not one record each: a flood from many addresses must not fill the disk through
      // the audit log (red team, session 32: 4,200 addresses wrote 4,202 records in a minute).
      tally.note('rate_limited:PAIRING_RATE_LIMITED', address);
      return Promise.resolve(false);
    },

    flush: () => tally.flush(),

    async start(mode, desktopId) {
      const opened = table.open(mode);
      if ('ok' in opened) {
        await audit(desktopId, 'start_refused', { refusal: opened });
        return opened;
      }
      const origins = deps.origins();
      const urls = mode === 'qr' ? origins.map((o) => pairingUrl(o, opened)) : [];
      const url = urls[0] ?? null;
      await audit(desktopId, 'opened', { pid: opened.pid, detail: { mode, expires_at: opened.expiresAt } });
      return {
        pid: opened.pid,
        mode,
        code: opened.code,
        expires_at: opened.expiresAt,
        k: toBase64Url(opened.k),
        url,
        fallback_urls: urls.slice(1),
        qr_svg: url === null ? null : await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }),
        origins,
      };
    },

    view: (pid) => table.view(pid),

    async confirm(pid, accept, desktopId) {
      const out = table.confirm(pid, accept);
      if ('ok' in out) {
        await audit(desktopId, accept ? 'confirm_refused' : 'cancel_refused', { pid, refusal: out });
        return out;
      }
      wake(pid);
      await audit(desktopId, accept ? 'accepted' : 'rejected', { pid, detail: { name: out.name } });
      return out;
    },

    async hello(req, address) {
      const out = await table.hello(req);
      if (!('ok' in out)) return out;
      // A hello for no open session costs the gate nothing but this record: counted, like a flood.
      if (out.code === 'PAIRING_UNKNOWN') tally.note(`hello_refused:${out.code}`, address);
      else await audit(`phone@${address}`, 'hello_refused', { pid: out.pid ?? ('pid' in req ? req.pid : undefined), refusal: out });
      return out;
    },

    async claim(body, address) {
      const actor = `phone@${address}`;
      const parsed = parseClaim(body);
      if (!parsed.ok) {
        const refusal: InputRefused = { ok: false, code: 'INPUT', reason: parsed.message };
        tally.note('claim_refused:INPUT', address);
        return refusal;
      }
      const out = await table.claim(parsed.value);
      if (out.ok) {
        try {
          await audit(actor, 'claimed', { pid: out.pid, detail: { name: out.name } });
        } catch (e) {
          table.confirm(out.pid, false); // an unaudited claim must not go on to be confirmed
          throw e;
        }
        wake(out.pid);
        return out.reply;
      }
      if (out.code === 'PAIRING_UNKNOWN') {
        tally.note(`claim_refused:${out.code}`, address);
        return out;
      }
      const detail = out.attempts === undefined ? undefined : { attempts: out.attempts };
      await audit(actor, out.burned === true ? 'burned' : 'claim_refused', { pid: out.pid ?? parsed.value.pid, refusal: out, ...(detail === undefined ? {} : { detail }) });
      return out;
    },

    async result(input, address, waitMs) {
      const end = deps.core.now() + Math.min(Math.max(waitMs, 0), MAX_RESULT_WAIT_MS);
      for (;;) {
        const out = await table.collect(input.pid, input.proof, deps.issueDevice);
        if (out.ok) {
          await audit(`phone@${address}`, 'paired', { pid: out.pid, detail: { name: out.name, device_id: out.deviceId } });
          return out.result;
        }
        const left = end - deps.core.now();
        if (out.code === 'PAIRING_WAITING' && left > 0) {
          await waitFor(input.pid, left);
          continue;
        }
        // Waiting is not a failure; every other refusal is audited (about no session: counted).
        if (out.code === 'PAIRING_UNKNOWN') tally.note(`result_refused:${out.code}`, address);
        else if (out.code !== 'PAIRING_WAITING') await audit(`phone@${address}`, 'result_refused', { pid: input.pid, refusal: out });
        return out;
      }
    },
  };
}

/** The QR as terminal text, for `oracle pair` (SPEC §12). */
export function terminalQr(url: string): Promise<string> {
  return QRCode.toString(url, { type: 'terminal', small: true, errorCorrectionLevel: 'M' });
}

/** How often the counted refusals are written, and how many distinct addresses a tally names. */
const TALLY_MS = 60_000;
const TALLY_SHOWN = 64;
const TALLY_COUNTED = 4096;

/**
 * Refusals that concern no open pairing session (a rate limit, an unknown session, a malformed
 * claim), which anyone on the network can send without end: audited as one record a minute with
 * their counts, the number of addresses and the first few of them (SPEC §9: every failure is
 * audited; issue 14: a flood must not fill the disk).
 */
class RefusalTally {
  private counts = new Map<string, number>();
  /** Distinct addresses, up to TALLY_COUNTED (more is `addresses_over`). */
  private addresses = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly write: (detail: Record<string, unknown>) => Promise<unknown>) {}

  note(what: string, address: string): void {
    this.counts.set(what, (this.counts.get(what) ?? 0) + 1);
    if (this.addresses.size < TALLY_COUNTED) this.addresses.add(address);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => void this.flush(), TALLY_MS);
      this.timer.unref();
    }
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.counts.size === 0) return;
    const shown = [...this.addresses].slice(0, TALLY_SHOWN);
    const detail = { counts: Object.fromEntries(this.counts), addresses: this.addresses.size, ...(this.addresses.size >= TALLY_COUNTED ? { addresses_over: true } : {}), first_addresses: shown };
    this.counts = new Map();
    this.addresses = new Set();
    await this.write(detail).catch(() => undefined);
  }
}
