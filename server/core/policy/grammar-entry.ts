import type { GrammarEntry } from './types.js';

/**
 * `"push --force"` → words `[push]`, flags `[--force]`: the leading words must open the argv in
 * order, every later token must appear somewhere after them.
 */
export function parseEntry(text: string, rule: string): GrammarEntry {
  const tokens = text.trim().split(/\s+/u).filter((t) => t !== '');
  const firstFlag = tokens.findIndex((t) => t.startsWith('-'));
  const cut = firstFlag === -1 ? tokens.length : firstFlag;
  return { words: tokens.slice(0, cut), flags: tokens.slice(cut), text, rule };
}
