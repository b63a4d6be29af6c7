import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordsNewestFirst } from '../../server/adapters/audit/read-log.js';
import { tempTree } from '../fixtures/temp-tree.js';

/** Reading the audit log from its end, across chunk boundaries, multi-byte characters and month files. */
describe('records newest first', () => {
  const tree = tempTree('oracle-log-back-');
  afterAll(() => {
    tree.dispose();
  });

  it('gives every record in reverse order and leaves out an unfinished last line', () => {
    const home = tree.dir('home');
    const dir = join(home, 'logs', 'audit');
    mkdirSync(dir, { recursive: true });
    const make = (n: number, from: number) => Array.from({ length: n }, (_, i) => ({ seq: from + i, note: `é€😀 ${'x'.repeat((from + i) % 700)}` }));
    const older = make(500, 0);
    const newer = make(3000, 500);
    writeFileSync(join(dir, '2026-11.jsonl'), older.map((r) => `${JSON.stringify(r)}\n`).join(''));
    writeFileSync(join(dir, '2026-12.jsonl'), `${newer.map((r) => `${JSON.stringify(r)}\n`).join('')}{"seq": 99999, "tor`);
    const seen = [...recordsNewestFirst(home)] as { seq: number }[];
    expect(seen.map((r) => r.seq)).toEqual([...older, ...newer].map((r) => r.seq).reverse());
  });
});
