import { describe, expect, it } from 'vitest';
import { applyEdits, editsOf, MAX_EDITED_CHARS, MAX_REPLACEMENTS } from './edits.js';

describe('Edit and MultiEdit as the file they leave behind', () => {
  const one = (old: string, put: string, all = false) => [{ old_string: old, new_string: put, replace_all: all }];

  it('replaces the one occurrence, or all of them with replace_all', () => {
    expect(applyEdits('port = 80\nhost = a\n', one('80', '8080'))).toEqual({ ok: true, text: 'port = 8080\nhost = a\n' });
    expect(applyEdits('a a a', one('a', 'b', true))).toEqual({ ok: true, text: 'b b b' });
  });

  it('refuses what Claude Code would refuse: a missing or ambiguous old_string', () => {
    expect(applyEdits('abc', one('x', 'y'))).toMatchObject({ ok: false, reason: '`old_string` does not occur in the file' });
    expect(applyEdits('a a', one('a', 'b'))).toMatchObject({ ok: false, reason: '`old_string` occurs 2 times and `replace_all` is not set' });
    expect(applyEdits('has text', one('', 'new'))).toMatchObject({ ok: false });
  });

  it('creates a new file from an empty old_string, and applies MultiEdit in order', () => {
    expect(applyEdits(null, one('', 'hello\n'))).toEqual({ ok: true, text: 'hello\n' });
    const edits = editsOf('MultiEdit', { edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'b c', new_string: 'd' }] });
    expect(applyEdits('a c', edits ?? [])).toEqual({ ok: true, text: 'd' });
    expect(applyEdits('a c', editsOf('MultiEdit', { edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'z', new_string: 'y' }] }) ?? [])).toMatchObject({ ok: false, reason: 'edit 2: `old_string` does not occur in the file' });
  });

  it('refuses edits past the limits, before building them (30 doublings once killed the gate)', () => {
    const doubling = Array.from({ length: 30 }, () => ({ old_string: 'a', new_string: 'aa', replace_all: true }));
    // edit k replaces 2^(k-1) occurrences: 16,383 by edit 14
    expect(applyEdits('a', doubling)).toMatchObject({ ok: false, reason: `edit 14: the edits would replace more than ${String(MAX_REPLACEMENTS)} occurrences; make them in smaller steps` });
    const huge = 'x'.repeat(MAX_EDITED_CHARS / 2 + 1);
    expect(applyEdits('a a', one('a', huge, true))).toMatchObject({ ok: false, reason: `the edited text would be ${String(MAX_EDITED_CHARS + 3)} characters, more than the ${String(MAX_EDITED_CHARS)} an edit may leave` });
    expect(applyEdits('a '.repeat(20_000), one('a', 'b'))).toMatchObject({ ok: false, reason: '`old_string` occurs many times and `replace_all` is not set' });
    // overlapping occurrences count as replaceAll takes them
    expect(applyEdits('aaa', one('aa', 'b', true))).toEqual({ ok: true, text: 'ba' });
  });

  it('takes $ in new_string as text, and refuses malformed edits', () => {
    expect(applyEdits('x', one('x', "$& $' $1"))).toEqual({ ok: true, text: "$& $' $1" });
    expect(applyEdits('x x', one('x', '$&$&', true))).toEqual({ ok: true, text: '$&$& $&$&' });
    expect(editsOf('Edit', { old_string: 1, new_string: 'b' })).toBeUndefined();
    expect(editsOf('MultiEdit', { edits: [] })).toBeUndefined();
  });
});
