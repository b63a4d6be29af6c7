import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

/**
 * canonicalJson must give the bytes of the `canonicalize` reference implementation for every
 * input, or fail where it fails: audit hashes, arg_hash and card signatures depend on it.
 */
function reference(value: unknown): string | Error {
  try {
    const text = canonicalize(value);
    return text === undefined ? new TypeError('value has no canonical JSON form') : text;
  } catch (e) {
    return e as Error;
  }
}

function ours(value: unknown): string | Error {
  try {
    return canonicalJson(value);
  } catch (e) {
    return e as Error;
  }
}

function agree(value: unknown): void {
  const want = reference(value);
  const got = ours(value);
  if (typeof want === 'string') expect(got).toBe(want);
  else expect(got).toBeInstanceOf(Error);
}

describe('canonicalJson', () => {
  it('matches the reference implementation on JSON values, lone surrogates included', () => {
    fc.assert(fc.property(fc.jsonValue(), agree), { numRuns: 2000 });
    fc.assert(fc.property(fc.dictionary(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })), agree), { numRuns: 1000 });
    fc.assert(fc.property(fc.array(fc.string({ unit: 'binary' })), agree), { numRuns: 500 });
  });

  it('matches it on anything else: dates, boxed values, maps, null prototypes, undefined, sparse arrays', () => {
    const anything = fc.anything({ withBoxedValues: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true, withObjectString: true, withSparseArray: true, withTypedArray: true, withBigInt: true });
    fc.assert(fc.property(anything, agree), { numRuns: 2000 });
  });

  it('agrees on the cases the fast path hands over or skips', () => {
    const deep: unknown[] = [];
    let at = deep;
    for (let i = 0; i < 100; i += 1) {
      const next: unknown[] = [];
      at.push(next);
      at = next;
    }
    const samples: unknown[] = [
      { b: 1, a: [undefined, () => 1, Symbol('s')], c: undefined },
      { toJSON: () => ({ z: 1 }) },
      { toJSON: 'not a function', a: -0 },
      { date: new Date(0) },
      [1e21, 1e-7, 0.1 + 0.2, -0, Number.MAX_SAFE_INTEGER],
      { '\u{1F600}': 1, é: 2, e: 3, '': 4 },
      { ['\uD800']: undefined, a: 1 },
      { ['\uD800']: 1 },
      Number.NaN,
      undefined,
      10n,
      deep,
    ];
    for (const sample of samples) agree(sample);
    expect(canonicalJson({ b: [1, { d: true, c: null }], a: 'x' })).toBe('{"a":"x","b":[1,{"c":null,"d":true}]}');
    expect(() => canonicalJson({ a: '\uDC00' })).toThrow();
  });
});
