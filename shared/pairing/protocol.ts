import { concat, fromBase64Url, utf8, type Bytes } from './bytes.js';
import { encodeFields, LABELS, resultInput, sealAad, transcriptBytes, type PairingMode, type Transcript } from './encoding.js';

/**
 * The pairing cryptography of SPEC §9a, on WebCrypto only (ECDSA and ECDH on P-256, HKDF-SHA-256,
 * HMAC-SHA-256, AES-GCM) so the phone and the server run the same code. SubtleCrypto is passed
 * in; nothing here reaches for a global.
 */
export type Subtle = typeof globalThis.crypto.subtle;
export type Key = Awaited<ReturnType<Subtle['importKey']>>;

const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const ECDH = { name: 'ECDH', namedCurve: 'P-256' } as const;
const SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;

export async function sha256(subtle: Subtle, data: Bytes): Promise<Bytes> {
  return new Uint8Array(await subtle.digest('SHA-256', data));
}

export async function hkdf(subtle: Subtle, ikm: Bytes, salt: Bytes, info: Bytes): Promise<Bytes> {
  const base = await subtle.importKey('raw', ikm, 'HKDF', false, ['deriveBits']);
  return new Uint8Array(await subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt, info }, base, 256));
}

/**
 * The pairing secret the MAC and the seal are keyed with. QR: `s`, 128 random bits the relay
 * never sees. Typed fallback: the 8-digit code. NOTE (SPEC §9a): the code is ~27 bits, so a
 * relay that terminates TLS can recover it offline from one MAC and then pass the MAC check;
 * in that mode only the comparison code on both screens stops a relay, and the screens say so.
 */
export function pairingSecret(mode: PairingMode, s: Bytes, code: string): Bytes {
  switch (mode) {
    case 'qr':
      return s;
    case 'code':
      return utf8(code);
  }
}

/** mac key = HKDF(secret, salt = pid, info = label ‖ mode): one key per session and mode. */
async function macKey(subtle: Subtle, secret: Bytes, pid: string, mode: PairingMode): Promise<Key> {
  const raw = await hkdf(subtle, secret, utf8(pid), encodeFields(LABELS.mac, [mode]));
  return subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

export async function transcriptMac(subtle: Subtle, secret: Bytes, t: Transcript): Promise<Bytes> {
  return new Uint8Array(await subtle.sign('HMAC', await macKey(subtle, secret, t.pid, t.mode), transcriptBytes(t)));
}

/** WebCrypto's HMAC verify compares in constant time (STYLE 7). */
export async function verifyTranscriptMac(subtle: Subtle, secret: Bytes, t: Transcript, mac: Bytes): Promise<boolean> {
  return subtle.verify('HMAC', await macKey(subtle, secret, t.pid, t.mode), mac, transcriptBytes(t));
}

/**
 * The 6-digit comparison code shown on both screens (step 4). It covers the transcript and the
 * server's `reveal`, committed to in the signed hello and disclosed only after a valid claim: a
 * relay that must choose its own claim before it learns the reveal cannot grind its transcript
 * until both screens show the same code (1 chance in 10^6 per pairing). Without the commitment
 * the last mover could search ~2^20 claims offline, which matters in the typed-code fallback.
 * The 2^32 mod 10^6 bias is below 0.03 % and irrelevant here.
 */
export async function comparisonCode(subtle: Subtle, t: Transcript, reveal: Bytes): Promise<string> {
  const digest = await sha256(subtle, encodeFields(LABELS.compare, [transcriptBytes(t), reveal]));
  const n = new DataView(digest.buffer).getUint32(0, false);
  return String(n % 1_000_000).padStart(6, '0');
}

/** Imports a raw uncompressed P-256 point; undefined when it is not one (off-curve, wrong size). */
export async function importPoint(subtle: Subtle, raw: Bytes, use: 'ecdsa' | 'ecdh'): Promise<Key | undefined> {
  if (raw.length !== 65 || raw[0] !== 0x04) return undefined;
  try {
    return use === 'ecdsa' ? await subtle.importKey('raw', raw, ECDSA, true, ['verify']) : await subtle.importKey('raw', raw, ECDH, true, []);
  } catch {
    return undefined;
  }
}

export async function rawPublic(subtle: Subtle, key: Key): Promise<Bytes> {
  return new Uint8Array(await subtle.exportKey('raw', key));
}

export async function ecdsaSign(subtle: Subtle, key: Key, data: Bytes): Promise<Bytes> {
  return new Uint8Array(await subtle.sign(SIGN, key, data));
}

/** ECDSA P-256 / SHA-256 in WebCrypto's IEEE P1363 form (r ‖ s, 64 bytes); false on any error. */
export async function ecdsaVerify(subtle: Subtle, key: Key, signature: Bytes, data: Bytes): Promise<boolean> {
  if (signature.length !== 64) return false;
  try {
    return await subtle.verify(SIGN, key, signature, data);
  } catch {
    return false;
  }
}

/** A fresh ephemeral ECDH key pair whose private half never leaves WebCrypto. */
export async function ephemeralEcdh(subtle: Subtle): Promise<{ readonly privateKey: Key; readonly raw: Bytes }> {
  const pair = await subtle.generateKey(ECDH, false, ['deriveBits']);
  return { privateKey: pair.privateKey, raw: await rawPublic(subtle, pair.publicKey) };
}

/** seal key = HKDF(ECDH(own, peer) ‖ secret, salt = SHA-256(transcript), info = label) (step 5). */
async function sealKey(subtle: Subtle, input: { readonly own: Key; readonly peer: Key; readonly secret: Bytes; readonly t: Transcript }): Promise<Key> {
  const shared = new Uint8Array(await subtle.deriveBits({ name: 'ECDH', public: input.peer }, input.own, 256));
  const raw = await hkdf(subtle, concat(shared, input.secret), await sha256(subtle, transcriptBytes(input.t)), utf8(LABELS.seal));
  return subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

export interface SealInput {
  /** This side's ECDH private key and the other side's public key. */
  readonly own: Key;
  readonly peer: Key;
  readonly secret: Bytes;
  readonly t: Transcript;
  readonly deviceId: string;
}

/** AES-GCM under the seal key; the transcript and device id are bound as associated data. */
export async function sealToken(subtle: Subtle, input: SealInput, token: string, iv: Bytes): Promise<Bytes> {
  const key = await sealKey(subtle, input);
  return new Uint8Array(await subtle.encrypt({ name: 'AES-GCM', iv, additionalData: sealAad(input.t, input.deviceId) }, key, utf8(token)));
}

/** Undefined when the tag does not verify: wrong secret, wrong ECDH key, or any bit changed. */
export async function unsealToken(subtle: Subtle, input: SealInput, sealed: Bytes, iv: Bytes): Promise<Bytes | undefined> {
  try {
    const key = await sealKey(subtle, input);
    return new Uint8Array(await subtle.decrypt({ name: 'AES-GCM', iv, additionalData: sealAad(input.t, input.deviceId) }, key, sealed));
  } catch {
    return undefined;
  }
}

export function signResult(subtle: Subtle, tlsKey: Key, input: { readonly t: Transcript; readonly deviceId: string; readonly iv: Bytes; readonly sealed: Bytes }): Promise<Bytes> {
  return ecdsaSign(subtle, tlsKey, resultInput(input.t, input.deviceId, input.iv, input.sealed));
}

export interface TlsSigner {
  /** Non-extractable ECDSA P-256 signing key. */
  readonly key: Key;
  /** DER SubjectPublicKeyInfo. */
  readonly spki: Bytes;
  /** SHA-256(SPKI), the `k` of the pairing URL. */
  readonly k: Bytes;
}

/**
 * Imports the TLS key (PKCS#8 PEM, ECDSA P-256) for signing with WebCrypto, and derives its SPKI
 * from the public coordinates (WebCrypto cannot export a public key from a private one directly).
 */
export async function importTlsSigner(subtle: Subtle, pkcs8Pem: string): Promise<TlsSigner> {
  const m = /^-----BEGIN PRIVATE KEY-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END PRIVATE KEY-----\s*$/u.exec(pkcs8Pem.trim() + '\n');
  const der = m?.[1] === undefined ? undefined : fromBase64Url(m[1].replace(/[\r\n=]/gu, '').replace(/\+/gu, '-').replace(/\//gu, '_'));
  if (der === undefined) throw new TypeError('the tls key is not a pkcs#8 pem');
  const exportable = await subtle.importKey('pkcs8', der, ECDSA, true, ['sign']);
  const publicKey = await subtle.importKey('jwk', await publicJwk(subtle, exportable), ECDSA, true, ['verify']);
  const spki = new Uint8Array(await subtle.exportKey('spki', publicKey));
  return { key: await subtle.importKey('pkcs8', der, ECDSA, false, ['sign']), spki, k: await sha256(subtle, spki) };
}

/** The device key as a JWK for the credential store: public coordinates only. */
export async function publicJwk(subtle: Subtle, key: Key): Promise<Readonly<Record<string, string>>> {
  const { kty, crv, x, y } = await subtle.exportKey('jwk', key);
  if (kty !== 'EC' || crv !== 'P-256' || x === undefined || y === undefined) throw new TypeError('not a p-256 public key');
  return { kty, crv, x, y };
}
