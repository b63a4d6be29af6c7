import { describe, expect, it } from 'vitest';
import { withoutPartialSecret } from './partial.js';

describe('withoutPartialSecret', () => {
  it('drops a tail that starts a known value, the longest start of any value', () => {
    expect(withoutPartialSecret('ok: hunter2-sec', ['hunter2-secret'])).toBe('ok: ');
    expect(withoutPartialSecret('ab', ['bcd', 'abx'])).toBe('');
    expect(withoutPartialSecret('x=b', ['bcd'])).toBe('x=');
  });

  it('keeps a text that holds a whole value (redaction hides that) or none at its end', () => {
    expect(withoutPartialSecret('hunter2-secret', ['hunter2-secret'])).toBe('hunter2-secret');
    expect(withoutPartialSecret('plain text', ['hunter2-secret'])).toBe('plain text');
    expect(withoutPartialSecret('', ['x'])).toBe('');
  });
});
