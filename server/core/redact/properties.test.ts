import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactDeep } from './deep.js';
import { RedactionError } from './errors.js';
import { marker } from './kinds.js';
import { MIN_VERIFIED_SECRET, redact } from './redact.js';

/**
 * Property tests of the SPEC §6 sink: a known secret never comes back out, a failure is a
 * RedactionError and never the input, output is stable, spans are exact.
 */

const SECRET_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/=!@#$%^&*:';
const secretArb = fc.string({ unit: fc.constantFrom(...Array.from(SECRET_CHARS)), minLength: MIN_VERIFIED_SECRET, maxLength: 64 });
const textArb = fc.string({ maxLength: 80 });
const anyTextArb = fc.string({ unit: 'binary', maxLength: 80 });

const encodings: readonly ((s: string) => string)[] = [(s) => s, (s) => encodeURIComponent(s), (s) => JSON.stringify(s).slice(1, -1), (s) => `Basic ${btoa(`u:${s}`)}`];

/** Either a text without any of the known values, or a loud RedactionError: never the secret. */
function safeOrLoud(text: string, known: readonly string[]): string | RedactionError {
  try {
    return redact(text, known).text;
  } catch (e) {
    if (e instanceof RedactionError) return e;
    throw e;
  }
}

describe('redact properties', () => {
  it('never returns a text containing a known secret of length >= 8 (secret-like values)', () => {
    fc.assert(
      fc.property(textArb, secretArb, textArb, fc.integer({ min: 0, max: encodings.length - 1 }), (before, secret, after, enc) => {
        const encode = encodings[enc] ?? ((s: string) => s);
        const out = redact(`${before}${encode(secret)}${after}${secret}`, [secret]).text;
        expect(out).not.toContain(secret);
        expect(out).not.toContain(encode(secret).slice(-(secret.length + 2)));
      }),
      { numRuns: 2000 },
    );
  });

  it('never returns a known secret for any unicode input: it hides it or fails loudly', () => {
    fc.assert(
      fc.property(anyTextArb, fc.string({ unit: 'binary', minLength: MIN_VERIFIED_SECRET, maxLength: 40 }), anyTextArb, (before, secret, after) => {
        const out = safeOrLoud(`${before}${secret}${after}`, [secret, before]);
        if (typeof out === 'string') expect(out).not.toContain(secret);
        else expect(out.code).toBe('residual_secret');
      }),
      { numRuns: 1000 },
    );
  });

  it('is idempotent and its spans are exact, sorted and disjoint', () => {
    const piece = fc.oneof(
      textArb,
      secretArb.map((s) => `password=${s}${s}${s}`),
      secretArb.map((s) => `postgres://u:${s.replace(/[/?#@\s'"`<>]/gu, 'x')}@h/db`),
      fc.constant(`ghp_${'aB3dE5gH7j'.repeat(4)}`),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), fc.array(secretArb, { maxLength: 2 }), (pieces, known) => {
        const text = pieces.join(' ');
        const once = redact(text, known);
        expect(redact(once.text, known)).toEqual({ text: once.text, redactions: [] });
        let at = 0;
        let rebuilt = '';
        for (const span of once.redactions) {
          expect(span.start).toBeGreaterThanOrEqual(at);
          expect(span.end).toBeGreaterThan(span.start);
          rebuilt += text.slice(at, span.start) + marker(span.kind);
          at = span.end;
        }
        expect(rebuilt + text.slice(at)).toBe(once.text);
      }),
      { numRuns: 1000 },
    );
  });

  it('redactDeep never leaves a known secret anywhere in the serialised value', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('value')), fc.dictionary(fc.string(), tie('value'))),
    })).value;
    fc.assert(
      fc.property(json, secretArb, (value, secret) => {
        const withSecret = { payload: value, [`k-${secret}`]: [`x${secret}y`] };
        const r = redactDeep(withSecret, [secret]);
        expect(JSON.stringify(r.value)).not.toContain(secret);
        expect(JSON.stringify(r.redactions)).not.toContain(secret);
      }),
      { numRuns: 500 },
    );
  });
});
