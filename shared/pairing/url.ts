import { fixedBytes, toBase64Url, type Bytes } from './bytes.js';
import { CODE_PATTERN, PID_PATTERN } from './wire.js';

/**
 * The QR URL of SPEC §9a step 1: `https://<host>:<port>/pair#v=1&p=<pid>&c=<code>&k=<k>&s=<s>&e=<expires>`.
 * Everything secret sits in the fragment, which browsers never send to the server. `e` is in
 * unix seconds (shorter QR); the server's own deadline is what counts.
 */
export interface PairingLink {
  readonly pid: string;
  readonly code: string;
  /** SHA-256 of the server's SPKI. */
  readonly k: Bytes;
  /** The 128-bit pairing secret. */
  readonly s: Bytes;
  readonly expiresAt: number;
}

export function pairingUrl(origin: string, link: PairingLink): string {
  const fragment = `v=1&p=${link.pid}&c=${link.code}&k=${toBase64Url(link.k)}&s=${toBase64Url(link.s)}&e=${String(Math.floor(link.expiresAt / 1000))}`;
  return `${origin.replace(/\/+$/u, '')}/pair#${fragment}`;
}

/** The phone's side: undefined for anything that is not exactly a v1 pairing link. */
export function parsePairingUrl(url: string): { readonly origin: string; readonly link: PairingLink } | undefined {
  const hash = url.indexOf('#');
  if (hash < 0) return undefined;
  const base = url.slice(0, hash);
  const m = /^(https:\/\/[^/?#]+)\/pair$/u.exec(base);
  if (m?.[1] === undefined) return undefined;
  const fields = new Map<string, string>();
  for (const part of url.slice(hash + 1).split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0 || fields.has(part.slice(0, eq))) return undefined;
    fields.set(part.slice(0, eq), part.slice(eq + 1));
  }
  const pid = fields.get('p') ?? '';
  const code = fields.get('c') ?? '';
  const k = fixedBytes(fields.get('k'), 32);
  const s = fixedBytes(fields.get('s'), 16);
  const e = Number(fields.get('e'));
  if (fields.size !== 6 || fields.get('v') !== '1' || !PID_PATTERN.test(pid) || !CODE_PATTERN.test(code) || k === undefined || s === undefined || !Number.isSafeInteger(e)) return undefined;
  return { origin: m[1], link: { pid, code, k, s, expiresAt: e * 1000 } };
}
