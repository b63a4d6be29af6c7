import { concat, utf8, type Bytes } from './bytes.js';

/**
 * The one canonical byte encoding every pairing MAC, signature, KDF input and comparison code is
 * computed over (SPEC §9a step 3: "one unambiguous canonical encoding"): a domain label, then
 * each field as a 4-byte big-endian length and its bytes. Each label has a fixed field list, so
 * no two different field tuples share an encoding, and a value made for one step (a hello
 * signature, say) never verifies as another (a result signature).
 */
export const LABELS = {
  hello: 'oracle-pair-v1/hello',
  transcript: 'oracle-pair-v1/transcript',
  mac: 'oracle-pair-v1/mac',
  compare: 'oracle-pair-v1/compare',
  collect: 'oracle-pair-v1/collect',
  seal: 'oracle-pair-v1/seal',
  sealAad: 'oracle-pair-v1/seal-aad',
  result: 'oracle-pair-v1/result',
} as const;
export type Label = (typeof LABELS)[keyof typeof LABELS];

/**
 * `qr`: the phone scanned the QR and knows `s`, `k` and the code. `code`: the typed fallback, the
 * phone knows only the 8-digit code; the mode is bound into every transcript so one can never
 * be replayed as the other.
 */
export const PAIRING_MODES = ['qr', 'code'] as const;
export type PairingMode = (typeof PAIRING_MODES)[number];

function u32(n: number): Bytes {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n, false);
  return out;
}

export function encodeFields(label: Label, fields: readonly (Uint8Array | string)[]): Bytes {
  const parts: Uint8Array[] = [];
  for (const field of [label, ...fields]) {
    const bytes = typeof field === 'string' ? utf8(field) : field;
    parts.push(u32(bytes.length), bytes);
  }
  return concat(...parts);
}

/** What the server signs in `hello` (step 2). `commit` is SHA-256 of the reveal sent after a valid claim. */
export interface HelloOffer {
  readonly mode: PairingMode;
  readonly pid: string;
  /** DER SubjectPublicKeyInfo of the TLS key; SHA-256 of it is `k`. */
  readonly spki: Bytes;
  /** The server's ephemeral ECDH P-256 public key, raw uncompressed (65 bytes). */
  readonly es: Bytes;
  readonly nonceS: Bytes;
  readonly commit: Bytes;
  /** Unix milliseconds after which no claim is accepted. */
  readonly expires: number;
}

export function helloInput(h: HelloOffer): Bytes {
  return encodeFields(LABELS.hello, [h.mode, h.pid, h.spki, h.es, h.nonceS, h.commit, String(h.expires)]);
}

/**
 * The transcript (step 3) binds k, pid, both nonces, Es, Ep, D.pub and the name, plus the mode
 * and the server's commitment (so the comparison code cannot be ground, see comparisonCode).
 */
export interface Transcript {
  readonly mode: PairingMode;
  readonly k: Bytes;
  readonly pid: string;
  readonly nonceS: Bytes;
  readonly es: Bytes;
  readonly commit: Bytes;
  readonly nonceP: Bytes;
  readonly ep: Bytes;
  /** The device's ECDSA P-256 public key, raw uncompressed (65 bytes). */
  readonly dPub: Bytes;
  readonly name: string;
}

export function transcriptBytes(t: Transcript): Bytes {
  return encodeFields(LABELS.transcript, [t.mode, t.k, t.pid, t.nonceS, t.es, t.commit, t.nonceP, t.ep, t.dPub, t.name]);
}

/** What the phone signs with D to collect its result: proof it holds the key it claimed with. */
export function collectInput(t: Transcript): Bytes {
  return encodeFields(LABELS.collect, [transcriptBytes(t)]);
}

/** What the server signs with the TLS key over the result (step 5). */
export function resultInput(t: Transcript, deviceId: string, iv: Uint8Array, sealed: Uint8Array): Bytes {
  return encodeFields(LABELS.result, [transcriptBytes(t), deviceId, iv, sealed]);
}

export function sealAad(t: Transcript, deviceId: string): Bytes {
  return encodeFields(LABELS.sealAad, [transcriptBytes(t), deviceId]);
}
