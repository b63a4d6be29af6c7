import { base64, toBase64Url } from './base64.js';
import type { Redaction } from './kinds.js';

/**
 * Exact values the caller knows are secret (the named secrets of SPEC §6) are hidden wherever
 * they appear, also in the encodings a tool is likely to print them in: URL-encoded, JSON-escaped,
 * and base64 / base64url (an `Authorization: Basic` header, a k8s Secret, a data: URL).
 */

/** Below this a base64 core is too short to be told apart from chance. */
const MIN_ENCODED_SECRET = 8;
const B64_CHAR = /[A-Za-z0-9+/_-]/u;

interface Needle {
  readonly text: string;
  /** base64 cores leave up to 4 bits of the secret in each neighbouring character. */
  readonly base64: boolean;
}

/**
 * A secret inside a longer base64 stream encodes differently for each of the three byte
 * alignments it can start at. For each alignment only the characters whose 6 bits come wholly
 * from the secret are fixed; that core appears in every stream holding the secret there.
 */
function base64Cores(secret: string): string[] {
  const bytes = new TextEncoder().encode(secret);
  const cores: string[] = [];
  for (let pad = 0; pad < 3; pad += 1) {
    const padded = new Uint8Array(pad + bytes.length);
    padded.set(bytes, pad);
    const encoded = base64(padded);
    const first = Math.ceil((8 * pad) / 6);
    const last = Math.floor((8 * (pad + bytes.length)) / 6); // exclusive
    const core = encoded.slice(first, last);
    cores.push(core, toBase64Url(core));
  }
  return cores;
}

/** A lone surrogate cannot be URL-encoded (URIError), so it cannot appear URL-encoded either. */
function urlEncoded(secret: string): string | undefined {
  try {
    return encodeURIComponent(secret);
  } catch {
    return undefined;
  }
}

function needlesFor(secret: string): Needle[] {
  const plain: Needle[] = [{ text: secret, base64: false }];
  const url = urlEncoded(secret);
  const encoded = [...(url === undefined ? [] : [url, url.replace(/%20/gu, '+')]), JSON.stringify(secret).slice(1, -1)];
  for (const text of encoded) if (text !== secret) plain.push({ text, base64: false });
  if (secret.length < MIN_ENCODED_SECRET) return plain;
  return [...plain, ...base64Cores(secret).map((text) => ({ text, base64: true }))];
}

function extendOverBase64(text: string, start: number, end: number): [number, number] {
  const s = start > 0 && B64_CHAR.test(text.charAt(start - 1)) ? start - 1 : start;
  const e = end < text.length && B64_CHAR.test(text.charAt(end)) ? end + 1 : end;
  return [s, e];
}

export function findKnown(text: string, known: readonly string[]): Redaction[] {
  const out: Redaction[] = [];
  const seen = new Set<string>();
  for (const secret of known) {
    if (secret === '') continue; // an empty value occurs everywhere and hides nothing
    for (const needle of needlesFor(secret)) {
      if (needle.text === '' || seen.has(needle.text)) continue;
      seen.add(needle.text);
      // Overlapping occurrences (`aaaa` in `aaaaa`) each count: step one character, not a needle.
      for (let at = text.indexOf(needle.text); at !== -1; at = text.indexOf(needle.text, at + 1)) {
        const [start, end] = needle.base64 ? extendOverBase64(text, at, at + needle.text.length) : [at, at + needle.text.length];
        out.push({ kind: 'known-secret', start, end });
      }
    }
  }
  return out;
}
