import { bytesEqual, toBase64Url, toHex, utf8, type Bytes } from '../../../shared/pairing/bytes.js';
import { collectInput, helloInput, type PairingMode, type Transcript } from '../../../shared/pairing/encoding.js';
import {
  comparisonCode,
  ecdsaSign,
  ecdsaVerify,
  ephemeralEcdh,
  importPoint,
  pairingSecret,
  publicJwk,
  sealToken,
  sha256,
  signResult,
  verifyTranscriptMac,
  type Subtle,
  type TlsSigner,
} from '../../../shared/pairing/protocol.js';
import {
  acceptClaim,
  addOffer,
  beginDelivery,
  checkClaim,
  checkCollect,
  checkOffer,
  deadline,
  decide,
  failAttempt,
  finishDelivery,
  openSession,
  refused,
  type PairingSession,
  type Refused,
  type SessionState,
} from './session.js';
import type { ClaimReplyWire, HelloRequest, HelloWire, Claim, ResultWire } from '../../../shared/pairing/wire.js';

/**
 * The server's table of pairing sessions (SPEC §9a): runs the crypto around the pure state
 * machine in session.ts. Every transition re-reads the session after its awaits and is applied
 * synchronously, so concurrent requests cannot both pass a check (a success commits only if the
 * session is still open; every failure counts against the session as it is now).
 */
export interface PairingCore {
  readonly subtle: Subtle;
  readonly randomBytes: (n: number) => Bytes;
  readonly now: () => number;
  readonly signer: TlsSigner;
}

export interface OpenedSession {
  readonly pid: string;
  readonly mode: PairingMode;
  readonly code: string;
  readonly s: Bytes;
  readonly k: Bytes;
  readonly expiresAt: number;
}

export interface SessionView {
  readonly pid: string;
  readonly mode: PairingMode;
  readonly state: SessionState | 'expired';
  readonly expires_at: number;
  readonly attempts: number;
  /** Shown as "Pair <name>?" once a valid claim arrived. */
  readonly name: string | null;
  readonly comparison_code: string | null;
  readonly device_id: string | null;
}

/** A refusal with what the audit log needs about the session it hit (never a secret). */
export type PairingRefused = Refused & { readonly pid?: string; readonly attempts?: number; readonly burned?: boolean };

export type ClaimAccepted = { readonly ok: true; readonly pid: string; readonly name: string; readonly comparison: string; readonly reply: ClaimReplyWire };
export type Delivered = { readonly ok: true; readonly pid: string; readonly deviceId: string; readonly name: string; readonly result: ResultWire };
export type IssueDevice = (name: string, publicKeyJwk: Readonly<Record<string, string>>) => Promise<{ readonly id: string; readonly token: string }>;

/** Terminal sessions are kept this long so a late request gets its real answer, then dropped. */
const RETAIN_MS = 10 * 60_000;
const MAX_LIVE = 16;
const CODE_LIMIT = 4_200_000_000; // the largest multiple of 10^8 below 2^32: rejection sampling, no bias

export class PairingTable {
  private readonly sessions = new Map<string, PairingSession>();

  constructor(private readonly core: PairingCore) {}

  /**
   * Step 1: pid, an 8-digit code and the 128-bit secret s; +120 s. A bounded table: with
   * MAX_LIVE sessions live the next is refused (PAIRING_FULL) rather than one cancelled unseen.
   */
  open(mode: PairingMode): OpenedSession | PairingRefused {
    const now = this.core.now();
    this.sweep(now);
    // One open typed session at a time (`hello {typed}` must find exactly one): the new code replaces the old.
    if (mode === 'code') for (const s of this.sessions.values()) if (s.mode === 'code' && s.state === 'open') this.cancel(s, now);
    const ends = [...this.sessions.values()].map(deadline).filter((end): end is number => end !== null && now < end);
    if (ends.length >= MAX_LIVE) return refused('PAIRING_FULL', `${String(ends.length)} pairing sessions are live; the first ends in ${String(Math.ceil((Math.min(...ends) - now) / 1000))} s`);
    const session = openSession({ pid: `pp_${toHex(this.core.randomBytes(12))}`, mode, code: this.newCode(), s: this.core.randomBytes(16) }, now);
    this.sessions.set(session.pid, session);
    return { pid: session.pid, mode, code: session.code, s: session.s, k: this.core.signer.k, expiresAt: session.expiresAt };
  }

  view(pid: string): SessionView | undefined {
    const s = this.sessions.get(pid);
    if (s === undefined) return undefined;
    const end = deadline(s);
    return {
      pid,
      mode: s.mode,
      state: end !== null && this.core.now() >= end ? 'expired' : s.state,
      expires_at: s.expiresAt,
      attempts: s.attempts,
      name: s.claim?.t.name ?? null,
      comparison_code: s.state === 'claimed' || s.state === 'approved' ? (s.claim?.comparison ?? null) : null,
      device_id: s.deviceId,
    };
  }

  /** Step 2: a fresh Es, nonce and commitment, signed by the TLS key. */
  async hello(req: HelloRequest): Promise<HelloWire | PairingRefused> {
    const { subtle, signer } = this.core;
    const found = 'pid' in req ? this.sessions.get(req.pid) : this.typedSession();
    if (found === undefined) return refused('PAIRING_UNKNOWN', 'no such pairing session');
    const early = checkOffer(found, this.core.now());
    if (early !== undefined) return { ...early, pid: found.pid };
    const eph = await ephemeralEcdh(subtle);
    const reveal = this.core.randomBytes(32);
    const offer = { nonceS: this.core.randomBytes(32), es: eph.raw, esPrivate: eph.privateKey, commit: await sha256(subtle, reveal), reveal };
    const signed = { mode: found.mode, pid: found.pid, spki: signer.spki, es: offer.es, nonceS: offer.nonceS, commit: offer.commit, expires: found.expiresAt };
    const sig = await ecdsaSign(subtle, signer.key, helloInput(signed));
    const current = this.recheck(found.pid, checkOffer);
    if ('ok' in current) return current;
    this.sessions.set(found.pid, addOffer(current, offer));
    const b = toBase64Url;
    return { v: 1, mode: found.mode, pid: found.pid, spki: b(signer.spki), es: b(offer.es), nonce_s: b(offer.nonceS), commit: b(offer.commit), expires: found.expiresAt, sig: b(sig) };
  }

  /**
   * Step 4: code, offer, points and MAC; each failure counts and the fifth burns the session.
   * The code is checked before any await so parallel guesses are counted in arrival order.
   */
  async claim(claim: Claim): Promise<ClaimAccepted | PairingRefused> {
    const { subtle } = this.core;
    const session = this.sessions.get(claim.pid);
    if (session === undefined) return refused('PAIRING_UNKNOWN', 'no such pairing session');
    const gate = checkClaim(session, this.core.now());
    if (gate !== undefined) return { ...gate, pid: session.pid, attempts: session.attempts };
    if (!bytesEqual(utf8(claim.code), utf8(session.code))) return this.fail(session.pid, 'wrong code');
    const offer = session.offers.find((o) => bytesEqual(o.nonceS, claim.nonceS));
    if (offer === undefined) return this.fail(session.pid, 'unknown hello');
    const deviceKey = await importPoint(subtle, claim.dPub, 'ecdsa');
    const ep = await importPoint(subtle, claim.ep, 'ecdh');
    if (deviceKey === undefined || ep === undefined || bytesEqual(claim.ep, offer.es)) return this.fail(session.pid, 'bad public key');
    const t: Transcript = { mode: session.mode, k: this.core.signer.k, pid: session.pid, nonceS: offer.nonceS, es: offer.es, commit: offer.commit, nonceP: claim.nonceP, ep: claim.ep, dPub: claim.dPub, name: claim.name };
    if (!(await verifyTranscriptMac(subtle, pairingSecret(session.mode, session.s, session.code), t, claim.mac))) return this.fail(session.pid, 'wrong mac');
    const comparison = await comparisonCode(subtle, t, offer.reveal);
    const current = this.recheck(session.pid, checkClaim);
    if ('ok' in current) return current;
    this.sessions.set(session.pid, acceptClaim(current, { t, offer, deviceKey, ep, comparison, at: this.core.now() }));
    return { ok: true, pid: session.pid, name: claim.name, comparison, reply: { state: 'waiting', reveal: toBase64Url(offer.reveal) } };
  }

  /** The desktop's "Pair <name>?" answer (accept), or a cancel at any live state (reject). */
  confirm(pid: string, accept: boolean): SessionView | PairingRefused {
    const session = this.sessions.get(pid);
    if (session === undefined) return refused('PAIRING_UNKNOWN', 'no such pairing session');
    const next = decide(session, accept, this.core.now());
    if ('ok' in next) return { ...next, pid };
    this.sessions.set(pid, next);
    return this.view(pid) ?? refused('PAIRING_UNKNOWN', 'gone');
  }

  /**
   * Step 5, once: the phone proves it holds D; the device is issued, its token sealed with
   * AES-GCM under HKDF(ECDH(Es, Ep) ‖ secret) and the result signed by the TLS key.
   */
  async collect(pid: string, proof: Bytes, issue: IssueDevice): Promise<Delivered | PairingRefused> {
    const { subtle } = this.core;
    const session = this.sessions.get(pid);
    if (session === undefined) return refused('PAIRING_UNKNOWN', 'no such pairing session');
    // Only the phone that claimed (it holds D) learns anything about the session's progress.
    const claim = session.claim;
    if (claim !== null && !(await ecdsaVerify(subtle, claim.deviceKey, proof, collectInput(claim.t)))) return { ...refused('PAIRING_PROOF', 'the collect proof does not verify'), pid };
    const gate = checkCollect(session, this.core.now());
    if (gate !== undefined || claim === null) return { ...(gate ?? refused('PAIRING_WAITING', 'not claimed yet')), pid };
    const current = this.recheck(pid, checkCollect);
    if ('ok' in current) return current;
    // INVARIANT: single delivery — the state leaves `approved` before the first await below.
    this.sessions.set(pid, beginDelivery(current));
    try {
      const device = await issue(claim.t.name, await publicJwk(subtle, claim.deviceKey));
      const iv = this.core.randomBytes(12);
      const input = { own: claim.offer.esPrivate, peer: claim.ep, secret: pairingSecret(session.mode, session.s, session.code), t: claim.t, deviceId: device.id };
      const sealed = await sealToken(subtle, input, device.token, iv);
      const sig = await signResult(subtle, this.core.signer.key, { t: claim.t, deviceId: device.id, iv, sealed });
      this.finish(pid, device.id);
      return { ok: true, pid, deviceId: device.id, name: claim.t.name, result: { state: 'paired', device_id: device.id, sealed_token: toBase64Url(sealed), iv: toBase64Url(iv), sig: toBase64Url(sig) } };
    } catch {
      this.finish(pid, null);
      return { ...refused('PAIRING_FAILED', 'issuing or sealing the device failed'), pid };
    }
  }

  /** Re-reads a session after an await and applies its check again: the state may have moved. */
  private recheck(pid: string, check: (s: PairingSession, now: number) => Refused | undefined): PairingSession | PairingRefused {
    const s = this.sessions.get(pid);
    if (s === undefined) return { ...refused('PAIRING_UNKNOWN', 'no such pairing session'), pid };
    const refusal = check(s, this.core.now());
    return refusal === undefined ? s : { ...refusal, pid };
  }

  private finish(pid: string, deviceId: string | null): void {
    const s = this.sessions.get(pid);
    if (s !== undefined) this.sessions.set(pid, finishDelivery(s, deviceId));
  }

  private fail(pid: string, reason: string): PairingRefused {
    const s = this.sessions.get(pid);
    if (s === undefined) return refused('PAIRING_UNKNOWN', 'gone');
    // Counted against the session as it is now, even if it changed during our awaits.
    const counted = s.state === 'open' ? failAttempt(s) : s;
    this.sessions.set(pid, counted);
    return { ...refused('PAIRING_PROOF', reason), pid, attempts: counted.attempts, burned: counted.state === 'burned' };
  }

  private typedSession(): PairingSession | undefined {
    const now = this.core.now();
    return [...this.sessions.values()].find((s) => s.mode === 'code' && s.state === 'open' && now < s.expiresAt);
  }

  private cancel(s: PairingSession, now: number): void {
    const next = decide(s, false, now);
    if (!('ok' in next)) this.sessions.set(s.pid, next);
  }

  private sweep(now: number): void {
    for (const s of this.sessions.values()) {
      const end = deadline(s) ?? (s.decidedAt ?? s.expiresAt);
      if (now > end + RETAIN_MS) this.sessions.delete(s.pid);
    }
  }

  private newCode(): string {
    for (;;) {
      const b = this.core.randomBytes(4);
      const n = new DataView(b.buffer, b.byteOffset, 4).getUint32(0, false);
      if (n < CODE_LIMIT) return String(n % 100_000_000).padStart(8, '0');
    }
  }
}
