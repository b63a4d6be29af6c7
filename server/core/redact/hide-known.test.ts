import { describe, expect, it } from 'vitest';
import { hideKnown } from './hide-known.js';

describe('hideKnown', () => {
  const value = 'Hunter2-Secret-Value';
  it('hides a known value in any string of a record, also lower-cased and in keys', () => {
    const hidden = hideKnown({ host: `${value.toLowerCase()}.evil.test`, nested: [{ error: `failed near ${value}` }], [value]: 1 }, [value]);
    expect(JSON.stringify(hidden)).not.toMatch(/hunter2-secret-value/iu);
    expect(hidden.host).toMatch(/^\[REDACTED:known-secret\]\.evil\.test$/u);
  });

  it('leaves every string without a known value exactly as it is (a digest is no secret)', () => {
    const record = { digest: `sha256:${'ab12'.repeat(16)}`, n: 3, ok: true, none: null, list: ['x'] };
    expect(hideKnown(record, [value])).toEqual(record);
    expect(hideKnown(record, [])).toBe(record);
  });
});
