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

/**
 * More characters that draw as nothing in a browser (measured at zero width in Chromium, red team
 * session 32): every format character (tags U+E0000–E007F, U+180E, U+206A–206F, musical
 * formatting), the unassigned default-ignorable code points (U+2065, U+FFF0–FFF8, the rest of
 * U+E0000–E0FFF), variation selectors (U+FE0F only where it does not follow an emoji or come
 * before a keycap, whose colour form it asks for: `⚠️`, `1️⃣` in a commit message), the combining
 * grapheme joiner, and the Hangul and braille blanks.
 */
// eslint-disable-next-line no-misleading-character-class -- matching joiners and selectors one by one is the point
const INVISIBLE = /[\p{Cf}\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2065\u2800\u3164\ufe00-\ufe0e\uffa0\ufff0-\ufff8\u{e0000}-\u{e0fff}]|(?<!\p{Extended_Pictographic})\ufe0f(?!\u20e3)/u;

/** Controls other than a tab and a line feed, and the Unicode line and paragraph separators. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDING_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/u;

export function hasNul(text: string): boolean {
  return text.includes('\u0000');
}

export function hasControl(text: string): boolean {
  return CONTROL.test(text);
}

export function hasConfusable(text: string): boolean {
  // Most paths are ASCII, which holds neither: one scan of the text decides for them.
  return !isAscii(text) && (CONFUSABLE.test(text) || INVISIBLE.test(text) || hasAsciiLookalike(text));
}

/**
 * A control that moves or hides text where a card shows it (ESC, CR, backspace, a form feed, a
 * U+2028 that JavaScript reads as a line break but a browser draws as a space); tabs and line
 * feeds are shown as they are.
 */
export function hasHidingControl(text: string): boolean {
  return HIDING_CONTROL.test(text);
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
