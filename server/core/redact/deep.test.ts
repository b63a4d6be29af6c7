import { describe, expect, it } from 'vitest';
import { redactDeep } from './deep.js';

/** SPEC §6 redaction of structured values: events, tool arguments, audit previews. */

const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ghp = `ghp_${'Zx81'.repeat(9)}`;

describe('redactDeep', () => {
  it('hides a string under a secret-looking key whatever its entropy', () => {
    const r = redactDeep({ db: { host: 'h', password: 'hunter2', passwordFile: '/run/x' }, n: 3 });
    expect(r.value).toEqual({ db: { host: 'h', password: '[REDACTED:secret-field]', passwordFile: '/run/x' }, n: 3 });
    expect(r.redactions).toEqual([{ path: '/db/password', in: 'value', kind: 'secret-field', start: 0, end: 7 }]);
  });

  it('redacts every string as text and reports the JSON pointer and offsets', () => {
    const r = redactDeep({ argv: ['git', 'push', `https://u:${B62}@github.com/o/r`], 'a/b~c': `token ${ghp}` });
    expect(r.value).toEqual({ argv: ['git', 'push', 'https://u:[REDACTED:url-credentials]@github.com/o/r'], 'a/b~c': 'token [REDACTED:github-token]' });
    expect(r.redactions).toEqual([
      { path: '/argv/2', in: 'value', kind: 'url-credentials', start: 10, end: 10 + B62.length },
      { path: '/a~1b~0c', in: 'value', kind: 'github-token', start: 6, end: 6 + ghp.length },
    ]);
  });

  it('redacts keys, and the path names the redacted key, never the secret', () => {
    const r = redactDeep({ [ghp]: 1, [`${ghp} `]: 2 });
    expect(r.value).toEqual({ '[REDACTED:github-token]': 1, '[REDACTED:github-token] ': 2 });
    expect(JSON.stringify(r.redactions)).not.toContain(ghp);
    expect(r.redactions[0]).toEqual({ path: '/[REDACTED:github-token]', in: 'key', kind: 'github-token', start: 0, end: ghp.length });
  });

  it('keeps two keys that redact to the same marker apart', () => {
    const r = redactDeep({ 'known-one-1234': 1, 'known-two-5678': 2 }, ['known-one-1234', 'known-two-5678']);
    expect(r.value).toEqual({ '[REDACTED:known-secret]': 1, '[REDACTED:known-secret]#2': 2 });
  });

  it('hides known values in strings and in numbers', () => {
    const r = redactDeep({ note: 'pin is 48151623', pin: 48151623, other: 42 }, ['48151623']);
    expect(r.value).toEqual({ note: 'pin is [REDACTED:known-secret]', pin: '[REDACTED:known-secret]', other: 42 });
  });

  it('keeps an own __proto__ key as data', () => {
    const input: unknown = JSON.parse('{"__proto__": {"password": "x"}, "a": 1}');
    const r = redactDeep(input);
    const value = r.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(value['__proto__']).toEqual({ password: '[REDACTED:secret-field]' });
  });

  it('leaves empty secret fields, other scalars and shared references as they are', () => {
    const shared = { a: 'x' };
    expect(redactDeep({ password: '', ok: true, nothing: null, missing: undefined, list: [shared, shared] }).value).toEqual({
      password: '',
      ok: true,
      nothing: null,
      missing: undefined,
      list: [{ a: 'x' }, { a: 'x' }],
    });
  });

  it('changes nothing more when run on its own output', () => {
    const once = redactDeep({ password: 'hunter2', headers: { Authorization: `Bearer ${B62}` }, list: [ghp] });
    expect(redactDeep(once.value)).toEqual({ value: once.value, redactions: [] });
  });

  it.each([
    ['a Map', new Map([['password', 'x']]), 'unsupported_value'],
    ['a Date', new Date(0), 'unsupported_value'],
    ['a class instance', new URL('https://example.org/'), 'unsupported_value'],
    ['a function', { f: () => 1 }, 'unsupported_value'],
    ['a bigint', { n: 1n }, 'unsupported_value'],
    ['a symbol', [Symbol('s')], 'unsupported_value'],
  ])('refuses %s loudly', (_name, value, code) => {
    expect(() => redactDeep(value)).toThrow(expect.objectContaining({ name: 'RedactionError', code }));
  });

  it('refuses cycles and absurd depth', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => redactDeep(cyclic)).toThrow(expect.objectContaining({ code: 'circular_value' }));
    let deep: unknown = 'x';
    for (let i = 0; i < 100; i += 1) deep = [deep];
    expect(() => redactDeep(deep)).toThrow(expect.objectContaining({ code: 'too_deep' }));
  });
});
