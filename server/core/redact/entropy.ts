/**
 * The entropy half of SPEC §6 redaction: is a value next to a key-like name an opaque token?
 * It only runs on values a detector already found right after a secret-looking key
 * (`key-names.ts`), so it can lean towards recall; on its own it would flag half of any
 * documentation.
 *
 * The thresholds were measured, not guessed: over 20,000 random tokens per length, the 0.1st
 * percentile of per-character Shannon entropy is 3.52 bits for 20 base62 characters (3.72 at 24,
 * 4.08 at 32) and 2.73 bits for 20 hex digits (3.10 at 32). Repeated or placeholder values
 * (`changeme-changeme-changeme` 2.9, `xxxx…` 0, `deadbeef…` 2.2) sit below. Entropy alone does not
 * separate identifiers from tokens at these lengths (`interactive-browser-flow` has 3.77 bits), so a
 * value must also not be "wordy": at most 0.6 of its characters in runs that read like words
 * (`[a-z]{5,}`, `Word`, `WORDS`); random base62 of length 20 rarely has more.
 * Measured result: about 99% of random base62/base64url tokens of length 20 and 99.9% of length 32
 * are accepted; paths, kebab and SCREAMING_SNAKE identifiers, dotted names and placeholders are
 * not. Recall comes first here: the value already sits under a secret-looking name, so the price
 * of a false positive is a marker in a preview, the price of a miss is a leaked credential.
 */

export const MIN_TOKEN_LENGTH = 20;
const MIN_ENTROPY_BITS = 3.0;
const MIN_HEX_ENTROPY_BITS = 2.5;
const MAX_WORDINESS = 0.6;

/** Shannon entropy of the string's own character distribution, in bits per character. */
export function shannonEntropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  let n = 0;
  for (const ch of text) {
    counts.set(ch, (counts.get(ch) ?? 0) + 1);
    n += 1;
  }
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / n;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** The share of characters that sit in runs that read like words (`[a-z]{5,}`, `Word`, `WORDS`). */
export function wordiness(text: string): number {
  let inWords = 0;
  for (const m of text.matchAll(/[a-z]{5,}|[A-Z][a-z]{4,}|[A-Z]{5,}/gu)) inWords += m[0].length;
  return text.length === 0 ? 0 : inWords / text.length;
}

const HEX = /^[0-9a-fA-F]+$/u;
const PATH_START = /^(?:\/|\.\.?\/|~\/)/u;

export function looksLikeOpaqueToken(value: string): boolean {
  if (value.length < MIN_TOKEN_LENGTH) return false;
  // Dotted values are judged by their longest part: `NodeJS.ArrayBufferView` (a type annotation
  // in a diff) is two short names, `ya29.<long random>` (an OAuth token) is one long token.
  if (value.includes('.')) {
    const longest = value.split('.').reduce((a, b) => (b.length > a.length ? b : a), '');
    return longest !== value && looksLikeOpaqueToken(longest);
  }
  const hasDigit = /[0-9]/u.test(value);
  const hasLower = /[a-z]/u.test(value);
  const hasUpper = /[A-Z]/u.test(value);
  if (HEX.test(value)) {
    // A hex key or a SHA next to a secret-looking name: digits and letters both, not a run of one.
    return hasDigit && (hasLower || hasUpper) && shannonEntropy(value) >= MIN_HEX_ENTROPY_BITS;
  }
  // A path next to a key-like name (`token_file=/var/lib/...`) names where a secret is, not the
  // secret. Cost: a standard-base64 token that starts with `/` and has a second `/` (< 1% of them).
  if (PATH_START.test(value) && value.indexOf('/', 1) > 0) return false;
  const classes = Number(hasDigit) + Number(hasLower) + Number(hasUpper);
  return classes >= 2 && shannonEntropy(value) >= MIN_ENTROPY_BITS && wordiness(value) <= MAX_WORDINESS;
}
