import { isSecretKeyName } from './key-names.js';
import type { RedactionKind } from './kinds.js';
import { redact } from './redact.js';

/**
 * What an approval card would hide that could run or change what runs (SPEC §10: the card shows
 * exactly what will run). A card shows each secret as `[REDACTED:kind]`; that is honest only when
 * the hidden bytes are a secret's own: a token of letters and digits, a key's base64 body. A
 * "password" in a URL may be any text up to the last `@`, a PEM block anything between its BEGIN
 * and END lines, a secret-named field any value, so each could carry shell or script that the
 * person never sees (red team, session 32: `ci://bot:;echo${IFS}…;:@host` in an `sh -c` script ran
 * what the card showed as `[REDACTED:url-credentials]`). Returns where the first such span is,
 * or undefined when every hidden span is inert.
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
/** A PEM line: base64, or an RFC 1421 header (`Proc-Type: 4,ENCRYPTED`, `DEK-Info: AES-128-CBC,…`). */
const PEM_LINE = /^(?:[A-Za-z0-9+/]*=*|[A-Za-z-]+: [A-Za-z0-9,-]+)$/u;
const PEM_EDGE = /^-----(?:BEGIN|END) [A-Z0-9 ]+-----$/u;
/** A PuTTY key file line: `Key: value` or base64. */
const PUTTY_LINE = /^(?:[A-Za-z-]+: [A-Za-z0-9+/=.,@ -]*|[A-Za-z0-9+/]*=*)$/u;

function inert(kind: RedactionKind | 'secret-field', hidden: string): boolean {
  if (kind !== 'private-key') return TOKEN.test(hidden);
  // Escaped line breaks (`\n` in a JSON string) are line breaks of the block.
  const lines = hidden.split(/\\n|\r?\n/u).map((l) => l.trim());
  if (lines[0]?.startsWith('PuTTY-User-Key-File-') === true) return lines.every((l) => PUTTY_LINE.test(l));
  return lines.every((l, i) => (i === 0 || i === lines.length - 1 ? PEM_EDGE.test(l) || (i === lines.length - 1 && l === '') : PEM_LINE.test(l)));
}
