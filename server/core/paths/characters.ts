/**
 * Characters a path may not carry on any flavor (SPEC §5 steps 1 and 4, plus look-alikes).
 * Refusing is the only safe answer: there is no escaping that makes them mean one thing.
 */

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators (paths check NUL first).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/**
 * Look-alikes of `.`, `/`, `\` and `:` that some Windows code pages "best fit" to the real
 * thing (the WorstFit family), and invisible or bidi characters that make an approval card show
 * a different path from the one that runs.
 */
const CONFUSABLE =
  /[\uff0e\uff0f\uff3c\uff1a\u2215\u2044\u29f8\u29f9\ufe68\ufe52\u2024\u2025\u2026\u00a5\u20a9\ua789\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u061c\ufeff\u00ad]/u;

export function hasNul(text: string): boolean {
  return text.includes('\u0000');
}

export function hasControl(text: string): boolean {
  return CONTROL.test(text);
}

export function hasConfusable(text: string): boolean {
  return CONFUSABLE.test(text) || hasAsciiLookalike(text);
}

/** True when every character is ASCII (char codes, no regular expression over controls). */
function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * A non-ASCII character that a file system or a code page may treat as an ASCII one: its
 * compatibility form is ASCII (fullwidth `ｓｓｈ`, ligatures, superscripts), or its one-character
 * case mapping is (the Kelvin sign `K` matches `k` on macOS; dotless `ı` upper-cases to `I`).
 * Such a name could slip past `**` /.kube/ ** while opening `.kube`.
 */
export function hasAsciiLookalike(text: string): boolean {
  if (isAscii(text)) return false;
  for (const c of text) {
    if (isAscii(c)) continue;
    const nfkc = c.normalize('NFKC');
    if (Array.from(nfkc).some(isAscii)) return true;
    for (const mapped of [c.toLowerCase(), c.toUpperCase()]) if (mapped.length === 1 && isAscii(mapped)) return true;
  }
  return false;
}

export function hasExpansion(text: string): boolean {
  return text.includes('%') || text.includes('$');
}

/** `~` and `~user` as the first segment ask for shell expansion, which never happens here. */
export function hasTildePrefix(text: string): boolean {
  return /^~[^/\\]*(?:[/\\]|$)/u.test(text);
}
