import { describe, expect, it } from 'vitest';
import { visibleText } from '../../pwa/src/lib/visible-text.js';

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
