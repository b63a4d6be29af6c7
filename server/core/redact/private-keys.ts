import type { Redaction } from './kinds.js';

/**
 * Private key blocks, whole (SPEC §6 "PEM blocks"): PEM/PKCS#8/OpenSSH/PGP armour and PuTTY key
 * files. Written as a scan rather than one regex: a lazy `BEGIN … END` regex rescans to the end
 * of the text for every BEGIN without an END, which is quadratic on hostile input.
 */

const BEGIN = /-----BEGIN ([A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?)-----/gu;
/** Base64, line breaks, escaped `\n` and RFC 1421 headers (`Proc-Type: 4,ENCRYPTED`). */
const BODY_CHAR = /[A-Za-z0-9+/=\s\\:,-]/u;
/** A PuTTY key file is `Key: value` lines and base64 lines, from its first line to the MAC. */
const PUTTY = /PuTTY-User-Key-File-\d+: [^\n]*(?:\r?\n(?:[A-Za-z-]+: [^\n]*|[A-Za-z0-9+/=]+(?=\r?\n|$)))*/gu;

function bodyEnd(text: string, from: number, limit: number): number {
  let end = from;
  while (end < limit && BODY_CHAR.test(text.charAt(end))) end += 1;
  return end;
}

export function findPrivateKeys(text: string): Redaction[] {
  const out: Redaction[] = [];
  // Literals every match contains: a text without them is not scanned (most texts).
  const begins = text.includes('-----BEGIN ') ? [...text.matchAll(BEGIN)] : [];
  begins.forEach((m, i) => {
    const start = m.index;
    const body = start + m[0].length;
    // INVARIANT: each BEGIN looks for its END only up to the next BEGIN, so the scan is linear.
    const limit = begins[i + 1]?.index ?? text.length;
    const endLine = `-----END ${m[1] ?? ''}-----`;
    const at = text.slice(body, limit).indexOf(endLine);
    // No END line: a block cut off by an output cap. The run of key-body characters is hidden,
    // which reaches the end of a truncated output but stops at the `...` of documentation that
    // only names the header.
    const end = at === -1 ? bodyEnd(text, body, limit) : body + at + endLine.length;
    out.push({ kind: 'private-key', start, end });
  });
  if (text.includes('PuTTY-User-Key-File-')) for (const m of text.matchAll(PUTTY)) out.push({ kind: 'private-key', start: m.index, end: m.index + m[0].length });
  return out;
}
