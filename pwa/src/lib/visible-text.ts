/**
 * A line as it will be typed, with nothing hidden (seed 001: a term.write card shows the exact
 * text): control characters as their Unicode control pictures (␛ for ESC, ␉ for a tab), spaces
 * at either end as ␠, and every other invisible or non-ASCII space character as its code point.
 * The gate refuses lines holding controls; this is the screen's own guard, not a substitute.
 */
export function visibleText(text: string): string {
  // Code point by code point, on purpose: a combining mark or a joiner is shown on its own.
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- splitting grapheme clusters apart is the point
  const marked = [...text].map((ch) => {
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20) return String.fromCodePoint(0x2400 + code);
    if (code === 0x7f) return '␡';
    if ((code >= 0x80 && code <= 0x9f) || /[\p{Cf}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u.test(ch)) return `\\u{${code.toString(16).toUpperCase()}}`;
    return ch;
  });
  const lead = marked.findIndex((c) => c !== ' ');
  const end = marked.length - 1 - [...marked].reverse().findIndex((c) => c !== ' ');
  return marked.map((c, i) => (c === ' ' && (lead === -1 || i < lead || i > end) ? '␠' : c)).join('');
}

/**
 * Characters that draw as nothing or move the text around them: format characters (bidi
 * controls, zero-width ones, tag characters), line and paragraph separators, variation selectors,
 * the combining grapheme joiner, the Hangul and braille blanks, and every space but the plain one.
 */
// eslint-disable-next-line no-misleading-character-class -- matching joiners and selectors one by one is the point
const INVISIBLE = /[\p{Cf}\p{Zl}\p{Zp}\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2065\u2800\u3164\ufe00-\ufe0e\uffa0\ufff0-\ufff8\u{e0000}-\u{e0fff}]|(?! )\p{Zs}/u;

const EMOJI = /\p{Extended_Pictographic}/u;

/**
 * Text of many lines as a card shows it (a command, a file's new content, a diff line): lines and
 * tabs stay as they are, and everything that would draw as nothing or reorder what is around it is
 * shown as its code point, with other controls as their pictures. Red team, session 32: a U+2028
 * drew as a space on the card and ended a `//` comment in the `node -e` that ran.
 */
export function markInvisible(text: string): string {
  let out = '';
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- code point by code point, on purpose
  const points = [...text];
  for (const [i, ch] of points.entries()) {
    const code = ch.codePointAt(0) ?? 0;
    // U+FE0F after an emoji or before a keycap asks for its colour form (`⚠️`, `1️⃣`); anywhere else it draws as nothing.
    const emojiForm = code === 0xfe0f && (EMOJI.test(points[i - 1] ?? '') || points[i + 1] === '\u20e3');
    if (ch === '\n' || ch === '\t' || emojiForm) out += ch;
    else if (code === 0xfe0f) out += '\\u{FE0F}';
    else if (code < 0x20) out += String.fromCodePoint(0x2400 + code);
    else if (code === 0x7f) out += '␡';
    else if ((code >= 0x80 && code <= 0x9f) || INVISIBLE.test(ch)) out += `\\u{${code.toString(16).toUpperCase()}}`;
    else out += ch;
  }
  return out;
}
