import type { Bytes } from '../../../shared/pairing/bytes.js';
import type { PairingMode, Transcript } from '../../../shared/pairing/encoding.js';
import type { Key } from '../../../shared/pairing/protocol.js';

/**
 * The pairing session state machine (SPEC §9, §9a). Pure, synchronous transitions; the clock is
 * an argument. Crypto happens around it (registry.ts); this file decides only what is allowed.
 *
 *   open ──claim ok──▶ claimed ──desktop accept──▶ approved ──collect──▶ delivering ──▶ delivered
 *    │ 5th failure        │ desktop reject            │                      └─ issue failed ─▶ failed
 *    ▼                    ▼                           ▼
 *  burned              rejected                 (expired: each live state has a deadline)
 */
export const SESSION_STATES = ['open', 'claimed', 'approved', 'delivering', 'delivered', 'rejected', 'burned', 'failed'] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** The code is valid 120 s (SPEC §9); the person then has as long again to confirm, the phone to collect. */
export const CLAIM_TTL_MS = 120_000;
export const CONFIRM_TTL_MS = 120_000;
export const COLLECT_TTL_MS = 120_000;
/** A wrong code or a wrong MAC counts; the fifth failure burns the session (SPEC §9a step 4). */
export const MAX_ATTEMPTS = 5;
/** Hellos per session: each holds an ephemeral key; a phone needs one, a retry or two more. */
export const MAX_OFFERS = 8;

export const PAIRING_REFUSALS = [
  'PAIRING_UNKNOWN',
  'PAIRING_EXPIRED',
  'PAIRING_BURNED',
  'PAIRING_USED',
  'PAIRING_PROOF',
  'PAIRING_INPUT',
  'PAIRING_OFFERS',
  'PAIRING_WAITING',
  'PAIRING_REJECTED',
  'PAIRING_FAILED',
  'PAIRING_RATE_LIMITED',
  'PAIRING_FULL',
] as const;
export type PairingRefusal = (typeof PAIRING_REFUSALS)[number];

export interface Refused {
  readonly ok: false;
  readonly code: PairingRefusal;
  /** For the audit log (never a secret): which check failed. */
  readonly reason: string;
}

export function refused(code: PairingRefusal, reason: string): Refused {
  return { ok: false, code, reason };
}

/** One `hello` answer: the server's ephemeral key and nonce, and the commitment to `reveal`. */
export interface Offer {
  readonly nonceS: Bytes;
  readonly es: Bytes;
  readonly esPrivate: Key;
  readonly commit: Bytes;
  readonly reveal: Bytes;
}

export interface AcceptedClaim {
  readonly t: Transcript;
  readonly offer: Offer;
  /** The device's verify key, for the collect proof. */
  readonly deviceKey: Key;
  readonly ep: Key;
  readonly comparison: string;
  readonly at: number;
}

export interface PairingSession {
  readonly pid: string;
  readonly mode: PairingMode;
  readonly code: string;
  /** 16 random bytes, shown only in the QR fragment. */
  readonly s: Bytes;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly attempts: number;
  readonly state: SessionState;
  readonly offers: readonly Offer[];
  readonly claim: AcceptedClaim | null;
  readonly decidedAt: number | null;
  readonly deviceId: string | null;
}

export function openSession(input: { readonly pid: string; readonly mode: PairingMode; readonly code: string; readonly s: Bytes }, now: number): PairingSession {
  return { ...input, createdAt: now, expiresAt: now + CLAIM_TTL_MS, attempts: 0, state: 'open', offers: [], claim: null, decidedAt: null, deviceId: null };
}

/** The instant the current state stops being usable; null for terminal states. */
export function deadline(s: PairingSession): number | null {
  switch (s.state) {
    case 'open':
      return s.expiresAt;
    case 'claimed':
      return (s.claim?.at ?? s.expiresAt) + CONFIRM_TTL_MS;
    case 'approved':
    case 'delivering':
      return (s.decidedAt ?? s.expiresAt) + COLLECT_TTL_MS;
    case 'delivered':
    case 'rejected':
    case 'burned':
    case 'failed':
      return null;
  }
}

/** Terminal states answer for themselves, expiry next; undefined means the state is live. */
function gate(s: PairingSession, now: number): Refused | undefined {
  switch (s.state) {
    case 'burned':
      return refused('PAIRING_BURNED', 'too many failed attempts');
    case 'rejected':
      return refused('PAIRING_REJECTED', 'refused or cancelled on the desktop');
    case 'delivered':
      return refused('PAIRING_USED', 'already paired');
    case 'failed':
      return refused('PAIRING_FAILED', 'the device could not be issued');
    case 'open':
    case 'claimed':
    case 'approved':
    case 'delivering': {
      const end = deadline(s);
      return end !== null && now >= end ? refused('PAIRING_EXPIRED', `expired in state ${s.state}`) : undefined;
    }
  }
}

/** A hello is answered only while the session is open and has offers left. */
export function checkOffer(s: PairingSession, now: number): Refused | undefined {
  const g = gate(s, now);
  if (g !== undefined) return g;
  if (s.state !== 'open') return refused('PAIRING_USED', 'already claimed');
  if (s.offers.length >= MAX_OFFERS) return refused('PAIRING_OFFERS', 'no more hellos for this session');
  return undefined;
}

export function addOffer(s: PairingSession, offer: Offer): PairingSession {
  return { ...s, offers: [...s.offers, offer] };
}

/** INVARIANT: single use — only an open, unexpired, unburned session takes a claim. */
export function checkClaim(s: PairingSession, now: number): Refused | undefined {
  const g = gate(s, now);
  if (g !== undefined) return g;
  return s.state === 'open' ? undefined : refused('PAIRING_USED', 'already claimed');
}

/** Counts one failed claim; the fifth burns the session for good. */
export function failAttempt(s: PairingSession): PairingSession {
  const attempts = s.attempts + 1;
  return { ...s, attempts, state: attempts >= MAX_ATTEMPTS ? 'burned' : s.state };
}

export function acceptClaim(s: PairingSession, claim: AcceptedClaim): PairingSession {
  if (s.state !== 'open') throw new TypeError('a claim is accepted only on an open session');
  return { ...s, state: 'claimed', claim, offers: [] };
}

/**
 * The desktop's answer. Accept only after a claim (the person must have seen the name and the
 * comparison code); reject or cancel at any live state before delivery.
 */
export function decide(s: PairingSession, accept: boolean, now: number): PairingSession | Refused {
  const g = gate(s, now);
  if (g !== undefined) return g;
  if (accept) return s.state === 'claimed' ? { ...s, state: 'approved', decidedAt: now } : refused('PAIRING_WAITING', `cannot accept in state ${s.state}`);
  return s.state === 'delivering' ? refused('PAIRING_USED', 'already being delivered') : { ...s, state: 'rejected', decidedAt: now, offers: [] };
}

/** The phone's collect: waiting until the desktop decides; single delivery after. */
export function checkCollect(s: PairingSession, now: number): Refused | undefined {
  const g = gate(s, now);
  if (g !== undefined) return g;
  switch (s.state) {
    case 'approved':
      return undefined;
    case 'open':
      return refused('PAIRING_WAITING', 'not claimed yet');
    case 'claimed':
      return refused('PAIRING_WAITING', 'waiting for the desktop');
    case 'delivering':
    case 'delivered':
      return refused('PAIRING_USED', 'already delivered');
    case 'rejected':
    case 'burned':
    case 'failed':
      return refused('PAIRING_USED', `state ${s.state}`); // unreachable: gate answered first
  }
}

/** INVARIANT: the result is delivered once; this step is taken synchronously before any await. */
export function beginDelivery(s: PairingSession): PairingSession {
  if (s.state !== 'approved') throw new TypeError('delivery starts only from approved');
  return { ...s, state: 'delivering' };
}

export function finishDelivery(s: PairingSession, deviceId: string | null): PairingSession {
  return deviceId === null ? { ...s, state: 'failed' } : { ...s, state: 'delivered', deviceId };
}
