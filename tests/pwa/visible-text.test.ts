import { describe, expect, it } from 'vitest';
import { markInvisible, visibleText } from '../../pwa/src/lib/visible-text.js';

describe('visibleText', () => {
  it('shows a plain line as it is', () => {
    expect(visibleText('git status --short')).toBe('git status --short');
  });

  it('marks spaces at either end, keeps the ones inside', () => {
    expect(visibleText('  ls -la ')).toBe('␠␠ls -la␠');
    expect(visibleText('   ')).toBe('␠␠␠');
  });

  it('shows control characters as control pictures and invisible ones as code points', () => {
    expect(visibleText('a\tb\u001b[2K\u007f')).toBe('a␉b␛[2K␡');
    expect(visibleText('ls\u200b\u00a0x\u202e')).toBe('ls\\u{200B}\\u{A0}x\\u{202E}');
    expect(visibleText('\u0085')).toBe('\\u{85}');
  });
});

describe('markInvisible', () => {
  it('keeps lines and tabs, and shows what draws as nothing or reorders text', () => {
    expect(markInvisible('a\n\tb')).toBe('a\n\tb');
    expect(markInvisible('x // off\u2028run()')).toBe('x // off\\u{2028}run()');
    expect(markInvisible('if (a) {\u202e } \u2066')).toBe('if (a) {\\u{202E} } \\u{2066}');
    expect(markInvisible('a\u{e0041}\u180e\u034f\ufe0f\u3164b')).toBe('a\\u{E0041}\\u{180E}\\u{34F}\\u{FE0F}\\u{3164}b');
    expect(markInvisible('ok\u0008\u000b\u0085')).toBe('ok␈␋\\u{85}');
    expect(markInvisible('plain é 日本 ⚠\ufe0f 1\ufe0f\u20e3')).toBe('plain é 日本 ⚠\ufe0f 1\ufe0f\u20e3');
    expect(markInvisible('a\u2065b\ufff0c\u{e0080}d')).toBe('a\\u{2065}b\\u{FFF0}c\\u{E0080}d');
  });
});
