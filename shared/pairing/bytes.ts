/**
 * Byte helpers for the pairing protocol (SPEC §9a), written for WebCrypto on both sides: no
 * Buffer, no node:*, so the phone (PWA) and the server build the very same bytes.
 */

/** Bytes backed by a plain ArrayBuffer, which is what WebCrypto accepts as a BufferSource. */
export type Bytes = Uint8Array<ArrayBuffer>;

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64URL_INDEX: Readonly<Record<string, number>> = Object.assign(Object.create(null) as Record<string, number>, Object.fromEntries(Array.from({ length: 64 }, (_, i) => [B64URL.charAt(i), i])));

/** RFC 4648 §5 base64url without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] ?? 0;
    const b = bytes[i + 1] ?? 0;
    const c = bytes[i + 2] ?? 0;
    const n = (a << 16) | (b << 8) | c;
    out += B64URL.charAt((n >> 18) & 63) + B64URL.charAt((n >> 12) & 63) + B64URL.charAt((n >> 6) & 63) + B64URL.charAt(n & 63);
  }
  // The last group keeps only the characters that carry input bits (no padding).
  return out.slice(0, Math.ceil((bytes.length * 8) / 6));
}

/**
 * Strict base64url decoding: the alphabet only, no padding, and the canonical form (the unused
 * low bits of the last character must be zero), so one value has exactly one spelling on the
 * wire. Undefined for anything else.
 */
export function fromBase64Url(text: string): Bytes | undefined {
  if (text.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  let acc = 0;
  let bits = 0;
  let j = 0;
  for (const ch of text) {
    const v = B64URL_INDEX[ch];
    if (v === undefined) return undefined;
    acc = ((acc << 6) | v) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[j] = (acc >> bits) & 0xff;
      j += 1;
    }
  }
  if ((acc & ((1 << bits) - 1)) !== 0) return undefined;
  return out;
}

/** Decodes base64url that must be exactly `length` bytes long. */
export function fixedBytes(text: unknown, length: number): Bytes | undefined {
  if (typeof text !== 'string' || text.length !== Math.ceil((length * 8) / 6)) return undefined;
  const bytes = fromBase64Url(text);
  return bytes?.length === length ? bytes : undefined;
}

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

export function utf8(text: string): Bytes {
  return new Uint8Array(encoder.encode(text));
}

/** Strict UTF-8 (STYLE 7): malformed bytes are refused, never replaced. */
export function fromUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}

export function concat(...parts: readonly Uint8Array[]): Bytes {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Constant-time equality for equal-length values; different lengths are simply unequal. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

export function toHex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}
