import { RedactionError } from './errors.js';
import { isSecretKeyName } from './key-names.js';
import { isMarker, marker, type RedactionKind } from './kinds.js';
import { checkKnown, redact, type RedactResult } from './redact.js';

/**
 * The redaction sink for structured values: events, tool arguments, audit previews (SPEC §6).
 * Every string is redacted as text; a string under a secret-looking key (`password`, `apiKey`,
 * `Authorization`) is hidden whole, whatever its entropy: the key already says what it is.
 */

export type JsonValue = string | number | boolean | null | undefined | readonly JsonValue[] | { readonly [key: string]: JsonValue };

export interface DeepRedaction {
  /**
   * JSON Pointer (RFC 6901) to the string in the OUTPUT value: a key that was itself redacted
   * appears as its marker, so a path never carries a secret.
   */
  readonly path: string;
  /** Whether the span lies in the member's key or in the string value at `path`. */
  readonly in: 'key' | 'value';
  readonly kind: RedactionKind;
  readonly start: number;
  readonly end: number;
}

export interface RedactDeepResult {
  readonly value: JsonValue;
  readonly redactions: readonly DeepRedaction[];
}

/** Deeper than any event ORACLE builds; deeper input is hostile or a bug. */
const MAX_DEPTH = 64;

function pointerSegment(key: string): string {
  return key.replace(/~/gu, '~0').replace(/\//gu, '~1');
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

interface KeyFacts {
  readonly redactedKey: RedactResult;
  readonly secretKey: boolean;
}

const KEYS = new Map<string, KeyFacts>();
const MAX_KEPT_KEYS = 1024;
const MAX_KEPT_KEY = 64;

class Walker {
  readonly redactions: DeepRedaction[] = [];
  private readonly ancestors = new Set<object>();

  constructor(private readonly known: readonly string[]) {}

  value(value: unknown, path: string, depth: number, secretKey = false): JsonValue {
    if (value === null || value === undefined || typeof value === 'boolean') return value;
    if (typeof value === 'string') return this.string(value, path, secretKey);
    if (typeof value === 'number') return this.number(value, path);
    if (typeof value !== 'object') {
      // bigint, symbol, function: not JSON; refusing beats guessing how a later stringify shows it.
      throw new RedactionError('unsupported_value', `unsupported ${typeof value} at \`${path}\``);
    }
    if (depth >= MAX_DEPTH) throw new RedactionError('too_deep', `value nested deeper than ${MAX_DEPTH} at \`${path}\``);
    if (this.ancestors.has(value)) throw new RedactionError('circular_value', `circular reference at \`${path}\``);
    this.ancestors.add(value);
    try {
      if (Array.isArray(value)) return value.map((item: unknown, i) => this.value(item, `${path}/${i}`, depth + 1));
      if (!isPlainObject(value)) throw new RedactionError('unsupported_value', `unsupported object at \`${path}\``);
      return this.object(value, path, depth);
    } finally {
      this.ancestors.delete(value);
    }
  }

  private object(value: Record<string, unknown>, path: string, depth: number): JsonValue {
    const out: Record<string, JsonValue> = {};
    for (const key of Object.keys(value)) {
      const { redactedKey, secretKey } = this.keyOf(key);
      let outKey = redactedKey.text;
      // Two secret keys can redact to the same marker; a JSON object cannot hold both.
      for (let n = 2; Object.hasOwn(out, outKey); n += 1) outKey = `${redactedKey.text}#${n}`;
      const memberPath = `${path}/${pointerSegment(outKey)}`;
      for (const r of redactedKey.redactions) this.redactions.push({ path: memberPath, in: 'key', ...r });
      // defineProperty, not assignment: an own `__proto__` key from JSON.parse must stay data.
      Object.defineProperty(out, outKey, {
        value: this.value(value[key], memberPath, depth + 1, secretKey),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }

  /**
   * A member name, redacted, and whether it names a secret. Names recur (`path`, `command`,
   * `content` on every action): with no known values (which could make any name a secret), the
   * answer for a short name is kept, up to a bound; redaction is a pure function of the text.
   */
  private keyOf(key: string): KeyFacts {
    if (this.known.length > 0 || key.length > MAX_KEPT_KEY) return { redactedKey: redact(key, this.known), secretKey: isSecretKeyName(key) };
    let facts = KEYS.get(key);
    if (facts === undefined) {
      facts = { redactedKey: redact(key), secretKey: isSecretKeyName(key) };
      if (KEYS.size >= MAX_KEPT_KEYS) KEYS.clear();
      KEYS.set(key, facts);
    }
    return facts;
  }

  private string(value: string, path: string, secretKey: boolean): string {
    if (secretKey && value !== '' && !isMarker(value)) {
      this.redactions.push({ path, in: 'value', kind: 'secret-field', start: 0, end: value.length });
      return marker('secret-field');
    }
    const r = redact(value, this.known);
    for (const span of r.redactions) this.redactions.push({ path, in: 'value', ...span });
    return r.text;
  }

  /** A number can be a known secret too (a PIN); it then becomes its redacted string. */
  private number(value: number, path: string): JsonValue {
    if (this.known.length === 0) return value;
    const r = redact(String(value), this.known);
    if (r.redactions.length === 0) return value;
    for (const span of r.redactions) this.redactions.push({ path, in: 'value', ...span });
    return r.text;
  }
}

/**
 * Returns a redacted copy of a JSON-like value (plain objects, arrays, strings, numbers,
 * booleans, null) and where each redaction was made. Anything else is refused with a
 * `RedactionError`, as is any internal failure.
 */
export function redactDeep(value: unknown, known: readonly string[] = []): RedactDeepResult {
  const walker = new Walker(checkKnown(known));
  try {
    return { value: walker.value(value, '', 0), redactions: walker.redactions };
  } catch (e) {
    if (e instanceof RedactionError) throw e;
    throw new RedactionError('internal_error', 'redaction failed', e instanceof Error ? e.name : typeof e);
  }
}
