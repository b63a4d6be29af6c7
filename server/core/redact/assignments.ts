import { looksLikeOpaqueToken } from './entropy.js';
import { isSecretKeyName } from './key-names.js';
import type { Redaction } from './kinds.js';

/**
 * SPEC §6: "an entropy check for long opaque tokens near key-like names". Near means the value of
 * an assignment to such a name, in the forms agents and tools print: `KEY=value`, `key: value`,
 * `"key": "value"`, `key => 'value'`, `Authorization: Bearer value`, `--token value`,
 * `?access_token=value&`.
 */

const VALUE = String.raw`(?:(?:Bearer|Basic|Token|bearer|basic|token)[ \t]+)?([A-Za-z0-9+/=_.~-]{20,})`;
const ASSIGNMENT = new RegExp(String.raw`(?<![A-Za-z0-9_.-])(["']?)([A-Za-z_][A-Za-z0-9_.-]{0,63})\1[ \t]*(?:=>|=|:)[ \t]*["']?${VALUE}`, 'dgu');
/**
 * What every ASSIGNMENT match contains from its operator on: a text without it cannot match, and
 * the full pattern (a look-behind tried at every position) is not run over it. Exact, not a guess.
 */
const ASSIGNMENT_NEEDS = new RegExp(String.raw`(?:=>|=|:)[ 	]*["']?(?:(?:Bearer|Basic|Token|bearer|basic|token)[ 	]+)?[A-Za-z0-9+/=_.~-]{20}`, 'u');
const FLAG = new RegExp(String.raw`(?<![A-Za-z0-9_-])--?([A-Za-z][A-Za-z0-9_-]{0,63})(?:=|[ \t]+)["']?${VALUE}`, 'dgu');

/**
 * Once a value is judged a token, the redaction runs to the next delimiter, not just to the end of
 * the token alphabet: `password=Zx81...q!#$` must not leave `!#$` (part of the secret) visible.
 */
const DELIMITER = /[\s'"`,;&<>(){}[\]]/u;

function valueEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && !DELIMITER.test(text.charAt(end))) end += 1;
  return end;
}

export function findAssignments(text: string): Redaction[] {
  const out: Redaction[] = [];
  for (const [re, nameGroup, valueGroup] of [
    [ASSIGNMENT, 2, 3],
    [FLAG, 1, 2],
  ] as const) {
    if (re === ASSIGNMENT && !ASSIGNMENT_NEEDS.test(text)) continue;
    for (const m of text.matchAll(re)) {
      const name = m[nameGroup] ?? '';
      const value = m[valueGroup] ?? '';
      const span = m.indices?.[valueGroup];
      if (span === undefined || !isSecretKeyName(name) || !looksLikeOpaqueToken(value)) continue;
      out.push({ kind: 'secret-assignment', start: span[0], end: valueEnd(text, span[0]) });
    }
  }
  return out;
}
