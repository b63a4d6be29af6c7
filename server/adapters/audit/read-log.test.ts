import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recentAuditRecords } from './read-log.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function homeWith(files: Record<string, string>): string {
  const home = mkdtempSync(join(tmpdir(), 'oracle-readlog-'));
  homes.push(home);
  mkdirSync(join(home, 'logs', 'audit'), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(home, 'logs', 'audit', name), text);
  return home;
}

const lines = (from: number, to: number, pad = ''): string => Array.from({ length: to - from + 1 }, (_, i) => JSON.stringify({ seq: from + i, pad }) + '\n').join('');

describe('the newest audit records for the desktop', () => {
  it('reads newest first across month files, up to the limit, skipping a line still being written', () => {
    const home = homeWith({ '2026-10.jsonl': lines(1, 3), '2026-11.jsonl': lines(4, 5) + '{"seq":6,"pa' });
    expect(recentAuditRecords(home, 4)).toEqual([5, 4, 3, 2].map((seq) => ({ seq, pad: '' })));
    expect(recentAuditRecords(home, 50)).toHaveLength(5);
  });

  it('reads only the end of a large month file', () => {
    const pad = 'x'.repeat(1000);
    const home = homeWith({ '2026-11.jsonl': lines(1, 3000, pad) });
    const recent = recentAuditRecords(home, 3) as { seq: number }[];
    expect(recent.map((r) => r.seq)).toEqual([3000, 2999, 2998]);
    // ~3 MB of log: only about the last MiB is read, and the cut first line is dropped, not misparsed.
    const all = recentAuditRecords(home, 10_000) as { seq: number }[];
    expect(all.length).toBeGreaterThan(900);
    expect(all.length).toBeLessThan(1100);
    expect(all.every((r, i) => r.seq === 3000 - i)).toBe(true);
  });

  it('is empty for a home without a log', () => {
    expect(recentAuditRecords(homeWith({}), 5)).toEqual([]);
  });
});
