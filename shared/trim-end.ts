/**
 * `text` without the run of `chars` at its end. A loop, not `/x+$/`: a regular expression anchored
 * only at the end tries every start in the run, so a command of 100,000 slashes (or newlines, or
 * U+FFFD) held the gate's one thread for seconds (red team, session 31).
 */
export function trimEnd(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text.charAt(end - 1))) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}
