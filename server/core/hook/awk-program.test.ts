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
  it('reads no pattern or string boundaries: a redirection after a print is refused wherever it sits', () => {
    expect(unsafeAwkProgram('{ x = /[/; print 1 > "f"; y = /]/ }')).toContain('writes to a file');
    expect(unsafeAwkProgram('{ print 1 ||| "sh" }')).toContain('pipes');
    expect(unsafeAwkProgram('{ print 1 |& "sh" }')).toContain('pipes');
    expect(unsafeAwkProgram('{ pri\\\nntf "x" > "f" }')).toContain('writes to a file');
    // Harmless, and allowed: no print to redirect, an or, a comparison before the print.
    expect(unsafeAwkProgram('{ x = /[/]/ }')).toBeUndefined();
    expect(unsafeAwkProgram('{ print ($1 || $2) }')).toBeUndefined();
    expect(unsafeAwkProgram('$3 > 100 && /a|b/ { print $1 }')).toBeUndefined();
    // Refused although harmless: the price of not tokenizing.
    expect(unsafeAwkProgram('{ print (a > b) }')).toBeDefined();
  });
  it('names what it refuses', () => {
    expect(unsafeAwkProgram('{ print > "f" }')).toContain('writes to a file');
    expect(unsafeAwkProgram('{ print | "sh" }')).toContain('pipes');
    expect(unsafeAwkProgram('BEGIN { system("id") }')).toContain('runs a command');
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
