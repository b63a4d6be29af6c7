import { describe, expect, it } from 'vitest';
import { textPage } from './text-page.js';

describe('textPage', () => {
  const text = 'one\ntwo\nthree\nfour';
  it('gives whole lines from an offset, and where the next page starts', () => {
    expect(textPage(text, { offset: 2, limit: 2, maxBytes: 1000 })).toEqual({ text: 'two\nthree\n', from: 2, to: 3, total_lines: 4, next_offset: 4 });
    expect(textPage(text, { offset: 4, limit: 10, maxBytes: 1000 })).toEqual({ text: 'four', from: 4, to: 4, total_lines: 4 });
  });
  it('stops at the byte budget on a line boundary', () => {
    expect(textPage(text, { offset: 1, limit: 10, maxBytes: 9 })).toMatchObject({ text: 'one\ntwo\n', to: 2, next_offset: 3 });
  });
  it('cuts a single line longer than a page at a character boundary and says so', () => {
    const page = textPage('ééééé\nx', { offset: 1, limit: 10, maxBytes: 5 });
    expect(page).toEqual({ text: 'éé', from: 1, to: 1, total_lines: 2, cut_line: true, next_offset: 2 });
  });
  it('gives an empty page past the end', () => {
    expect(textPage(text, { offset: 9, limit: 5, maxBytes: 100 })).toEqual({ text: '', from: 5, to: 4, total_lines: 4 });
    expect(textPage('', { offset: 1, limit: 5, maxBytes: 100 })).toEqual({ text: '', from: 1, to: 0, total_lines: 0 });
  });
});
