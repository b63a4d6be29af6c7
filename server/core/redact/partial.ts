/**
 * Output cut at a size cap may end inside a secret's value, where the whole value cannot be
 * recognised and so is not redacted: `text` without a tail that is the start of one of `known`
 * (the rest of it was cut off). Only the exact values are looked for, not their encodings.
 */
export function withoutPartialSecret(text: string, known: readonly string[]): string {
  let cut = text.length;
  for (const value of known) {
    for (let k = Math.min(value.length - 1, text.length); k >= 1; k -= 1) {
      if (text.endsWith(value.slice(0, k))) {
        cut = Math.min(cut, text.length - k);
        break;
      }
    }
  }
  return text.slice(0, cut);
}
