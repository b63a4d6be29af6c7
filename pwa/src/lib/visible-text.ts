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
