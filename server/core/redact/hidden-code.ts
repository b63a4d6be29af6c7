import { isSecretKeyName } from './key-names.js';
import type { RedactionKind } from './kinds.js';
import { redact } from './redact.js';

/**
 * What an approval card would hide that could run or change what runs (SPEC §10: the card shows
 * exactly what will run). A card shows each secret as `[REDACTED:kind]`; that is honest only when
 * the hidden bytes are a token's own: letters, digits and a few marks. A "password" in a URL may
 * be any text up to the last `@`, a PEM block anything between its BEGIN and END lines, a
 * secret-named field any value, so each could carry shell or script that the person never sees
 * (red team, session 32: `ci://bot:;echo${IFS}…;:@host` in an `sh -c` script ran what the card
 * showed as `[REDACTED:url-credentials]`). Returns where the first such span is, or undefined
 * when every hidden span is an inert token (a key block never is).
 */
export function hiddenCode(value: unknown, path = 'args', depth = 0): string | undefined {
  if (depth > 64) return `${path} is nested too deeply to show`;
  if (typeof value === 'string') return hiddenIn(value, path);
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = hiddenCode(item, `${path}[${String(i)}]`, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = `${path}.${key}`;
    const inKey = hiddenIn(key, `a key of ${path}`);
    if (inKey !== undefined) return inKey;
    // A secret-named field is hidden whole, whatever it holds.
    if (typeof item === 'string' && isSecretKeyName(key) && !inert('secret-field', item)) return `${at}, a secret-named field whose value holds more than a secret's characters`;
    const found = hiddenCode(item, at, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function hiddenIn(text: string, path: string): string | undefined {
  for (const span of redact(text).redactions) {
    if (!inert(span.kind, text.slice(span.start, span.end))) return `${path}, where the part the card would show as [REDACTED:${span.kind}] holds more than a secret's characters`;
  }
  return undefined;
}

/** A token: letters, digits and the few marks tokens and URL passwords use; `=` only as padding. */
const TOKEN = /^[A-Za-z0-9+/_.~:%-]*=*$/u;

/**
 * A private key block is never inert on a card: its lines are base64 only to look at, and a line
 * of base64 characters is also a command (`make`, `/usr/bin/id`) to a shell that skips the BEGIN and
 * END lines as unknown commands (review round 2, session 32). A key has no place in what a person
 * approves; it belongs in a file or in ORACLE's secret store.
 */
function inert(kind: RedactionKind | 'secret-field', hidden: string): boolean {
  return kind !== 'private-key' && TOKEN.test(hidden);
}
