import canonicalize from 'canonicalize';

/**
 * RFC 8785 canonical JSON, shared so the server and the PWA hash and sign the very same bytes:
 * arg_hash, audit records and approval cards.
 *
 * Plain data (what JSON.parse makes and what the gate builds: plain objects, arrays, strings,
 * finite numbers, booleans, null) takes a direct recursive serializer; anything else (a toJSON,
 * a boxed primitive, a class instance, a bigint, deep nesting) and every failure goes to the
 * `canonicalize` reference implementation, which decides it. The two agree byte for byte on plain
 * data (a property test compares them); the direct one is several times faster, and every action
 * canonicalizes its arguments and three audit records.
 */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = plain(value, 0);
  } catch {
    text = undefined;
  }
  if (text !== undefined) return text;
  const reference = canonicalize(value);
  if (reference === undefined) throw new TypeError('value has no canonical JSON form');
  return reference;
}

/** Deeper than anything the gate builds; beyond it the reference implementation decides. */
const PLAIN_DEPTH = 48;

/** No lone surrogate (ES2024's String.prototype.isWellFormed, which the reference implementation uses too). */
const wellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Thrown inside `plain` only: not plain data, so the reference implementation decides. */
const NOT_PLAIN = new Error('not plain data');

/** The canonical text of plain data; undefined for a value JSON omits (undefined, a function, a symbol). */
function plain(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return stringText(value);
    case 'number':
      if (!Number.isFinite(value)) throw NOT_PLAIN;
      // ECMAScript's Number serialization is RFC 8785's (§3.2.2.3); -0 becomes 0.
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'object':
      if (value === null) return 'null';
      if (depth >= PLAIN_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') throw NOT_PLAIN;
      if (Array.isArray(value)) return array(value as readonly unknown[], depth);
      return object(value, depth);
    case 'bigint':
      throw NOT_PLAIN;
  }
}

function array(items: readonly unknown[], depth: number): string {
  let out = '[';
  for (let i = 0; i < items.length; i += 1) {
    if (i > 0) out += ',';
    // Inside arrays a value JSON omits is null.
    out += plain(items[i], depth + 1) ?? 'null';
  }
  return `${out}]`;
}

function object(value: object, depth: number): string {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
  const record = value as Readonly<Record<string, unknown>>;
  const keys = sortedKeys(record);
  let out = '{';
  let first = true;
  for (const key of keys) {
    const member = plain(record[key], depth + 1);
    // Inside objects a member whose value JSON omits is left out.
    if (member === undefined) continue;
    out += `${first ? '' : ','}${keyText(key)}:${member}`;
    first = false;
  }
  return `${out}}`;
}

/** Its own keys in UTF-16 code unit order (RFC 8785 §3.2.3: the default sort's and `>`'s); a sort only when they are not in order already. */
function sortedKeys(record: object): string[] {
  const keys = Object.keys(record);
  for (let i = 1; i < keys.length; i += 1) {
    if ((keys[i - 1] as string) > (keys[i] as string)) return keys.sort();
  }
  return keys;
}

/** A string that JSON.stringify would change beyond its quotes: a quote, a backslash, a control character. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/u;

/** A string's canonical text (RFC 8785 §3.2.2.2 is ECMAScript's JSON string serialization). */
function stringText(text: string): string {
  if (!wellFormed(text)) throw NOT_PLAIN;
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** Member names recur (every record has the same few dozen): their text is kept, up to a bound. */
const KEY_TEXTS = new Map<string, string>();
const MAX_KEY_TEXTS = 4096;

function keyText(key: string): string {
  let text = KEY_TEXTS.get(key);
  if (text === undefined) {
    text = stringText(key);
    if (KEY_TEXTS.size >= MAX_KEY_TEXTS) KEY_TEXTS.clear();
    if (key.length <= 64) KEY_TEXTS.set(key, text);
  }
  return text;
}
