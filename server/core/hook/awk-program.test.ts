import { describe, expect, it } from 'vitest';
import { AWK_REACHING, AWK_TEXT_ONLY } from '../../../tests/fixtures/awk-programs.js';
import { unsafeAwkAssignment, unsafeAwkProgram } from './awk-program.js';

describe('awk programs', () => {
  it.each(AWK_TEXT_ONLY)('%s computes text only', (program) => {
    expect(unsafeAwkProgram(program)).toBeUndefined();
  });
  it.each(AWK_REACHING)('%s is refused', (program) => {
    expect(unsafeAwkProgram(program)).toBeDefined();
  });
  it('refuses a pattern the awks split differently, and a bare `length /`', () => {
    // gawk and mawk read `[/]` as one bracket; the one true awk ends the pattern at its `/`.
    expect(unsafeAwkProgram('{ x = /[/; print 1 > "f"; y = /]/ }')).toContain('bracket');
    expect(unsafeAwkProgram('{ x = /[/]/ }')).toContain('bracket');
    expect(unsafeAwkProgram('{ print length / 2 }')).toContain('length /');
    expect(unsafeAwkProgram('{ x = /[]/]/ }')).toContain('bracket');
    expect(unsafeAwkProgram('$0 ~ /[^]a]/')).toBeUndefined();
  });
  it('names what it refuses', () => {
    expect(unsafeAwkProgram('{ print > "f" }')).toContain('writes to a file');
    expect(unsafeAwkProgram('{ print | "sh" }')).toContain('pipes');
    expect(unsafeAwkProgram('BEGIN { system("id") }')).toContain('runs a command');
    expect(unsafeAwkProgram('BEGIN { print "unterminated }')).toContain('does not end');
    // Named even inside a string or a comment: refusing a rare literal costs less than a misread.
    expect(unsafeAwkProgram('{ print "system" }')).toContain('runs a command');
  });
});

describe('awk assignments', () => {
  it.each(['x=1', 'FS=:', 'OFS=\t', 'name=a b'])('%s is plain data', (a) => {
    expect(unsafeAwkAssignment(a)).toBeUndefined();
  });
  it.each(['ARGC=5', 'ENVIRON=x', 'no-equals', '1x=2'])('%s is refused', (a) => {
    expect(unsafeAwkAssignment(a)).toBeDefined();
  });
});
