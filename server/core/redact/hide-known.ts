import { findKnown } from './known.js';
import { redact } from './redact.js';

/**
 * `value` (plain JSON: what an audit record's `detail` or an event holds) with every string that
 * holds one of `known` redacted (the value hidden as in redact(), in the encodings it knows); other
 * strings are left exactly as they are, so a digest or an id a record holds is never taken for a
 * secret. Also lower-cased forms, as a host name holding a value comes back.
 */
export function hideKnown<T>(value: T, known: readonly string[]): T {
  if (known.length === 0) return value;
  const needles = [...new Set(known.flatMap((v) => [v, v.toLowerCase()]))];
  return walk(value, needles, 0) as T;
}

/** Deeper than any record the gate builds; below it a value is left as it is. */
const MAX_DEPTH = 32;

function walk(value: unknown, known: readonly string[], depth: number): unknown {
  if (typeof value === 'string') return findKnown(value, known).length === 0 ? value : redact(value, known).text;
  if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v: unknown) => walk(v, known, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [walk(k, known, depth + 1) as string, walk(v, known, depth + 1)]));
}
