import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unsafeAwkProgram } from '../../server/core/hook/awk-program.js';
import { AWK_REACHING, AWK_TEXT_ONLY } from '../fixtures/awk-programs.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * ORACLE's reading of awk programs against the awks themselves: each program runs under strace in
 * mawk (Debian's awk) and gawk, in a folder holding its input and a file named `secret`. A program
 * awk-program.ts lets through must, in every awk, start no program, open nothing for writing, open
 * no file but its input and what a plain `{print}` opens (libraries, locales), and leave the folder
 * as it was. Each refused program must really reach beyond its input in at least one awk, so the
 * refusals are of real things and the property cannot hold by the sample being harmless.
 */
const AWKS = ['mawk', 'gawk'] as const;
const CANARY = '/canary-home-7d1e';

interface Trace {
  readonly execs: number;
  readonly writes: readonly string[];
  readonly opened: readonly string[];
  readonly stdout: string;
}

let tree: TempTree;
let dir: string;
const baseline = new Map<string, Set<string>>();

function traced(awk: string, program: string): Trace {
  const log = join(tree.root, 'trace.txt');
  const run = spawnSync('strace', ['-f', '-qq', '-e', 'trace=execve,open,openat,creat', '-o', log, awk, program, 'input'], {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: CANARY, LC_ALL: 'C' },
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (run.error !== undefined) throw run.error;
  const lines = readFileSync(log, 'utf8').split('\n');
  const opens = lines.filter((l) => /\b(?:open|openat|creat)\(/u.test(l) && !/= -1 /u.test(l));
  const pathOf = (l: string): string => /"((?:[^"\\]|\\.)*)"/u.exec(l)?.[1] ?? '';
  return {
    execs: lines.filter((l) => /\bexecve\(/u.test(l)).length,
    writes: opens.filter((l) => /O_WRONLY|O_RDWR|O_CREAT|creat\(/u.test(l)).map(pathOf),
    opened: opens.map(pathOf),
    stdout: run.stdout,
  };
}

beforeAll(() => {
  tree = tempTree('oracle-awk-');
  dir = tree.dir('work');
  writeFileSync(join(dir, 'input'), '3 a/b 7\n120 c|d 1\n# x 2\n');
  writeFileSync(join(dir, 'secret'), 'SECRET-LINE\n');
  for (const awk of AWKS) {
    const plain = traced(awk, '{print}');
    expect(plain.stdout, `${awk} is installed and runs under strace`).toContain('120 c|d 1');
    baseline.set(awk, new Set(plain.opened));
  }
});

afterAll(() => {
  tree.dispose();
});

describe.each(AWKS)('%s under strace', (awk) => {
  it.each(AWK_TEXT_ONLY)('lets through %s: it reads its input and prints, nothing else', (program) => {
    expect(unsafeAwkProgram(program)).toBeUndefined();
    const t = traced(awk, program);
    expect(t.execs, 'only awk itself starts').toBe(1);
    expect(t.writes).toEqual([]);
    expect(t.opened.filter((p) => !(baseline.get(awk) ?? new Set()).has(p) && p !== 'input')).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['input', 'secret']);
  });
});

describe('each refused program reaches beyond its input in a real awk', () => {
  it.each(AWK_REACHING)('%s', (program) => {
    expect(unsafeAwkProgram(program)).toBeDefined();
    const reached = AWKS.filter((awk) => {
      const t = traced(awk, program);
      const changed = readdirSync(dir).sort().join() !== 'input,secret';
      for (const name of readdirSync(dir)) if (name !== 'input' && name !== 'secret') rmSync(join(dir, name), { recursive: true, force: true });
      const extra = t.opened.filter((p) => !(baseline.get(awk) ?? new Set()).has(p) && p !== 'input');
      return t.execs > 1 || t.writes.length > 0 || extra.length > 0 || changed || t.stdout.includes(CANARY) || t.stdout.includes('SECRET-LINE');
    });
    expect(reached.length, `no installed awk reached beyond its input with ${program}`).toBeGreaterThan(0);
  });
});
