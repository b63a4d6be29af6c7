import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditBody } from '../../core/audit/record.js';
import { openAuditLog } from './appender.js';
import { recentAuditRecords, verifyAuditHome } from './read-log.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});
const freshHome = (): string => {
  const home = mkdtempSync(join(tmpdir(), 'oracle-appender-'));
  homes.push(home);
  return home;
};
const body = (actor: string): AuditBody => ({ kind: 'decision', ts: '2026-12-01T00:00:00.000Z', actor });

describe('a record queued for the next group commit (appendWithNext)', () => {
  it('is written with the next append, before its records, in one flush', async () => {
    const home = freshHome();
    const log = openAuditLog(home);
    const queued = log.appendWithNext(body('load'));
    // Nothing starts a write for it on its own: the next append's flush takes both.
    await new Promise((r) => setImmediate(r));
    expect(verifyAuditHome(home).records).toBe(0);
    const [first, second] = await Promise.all([queued, log.append(body('call'))]);
    expect([first.seq, second.seq]).toEqual([1, 2]);
    await log.close();
    expect(recentAuditRecords(home, 2).map((r) => (r as AuditBody).actor)).toEqual(['call', 'load']);
  });

  it('is written at close when nothing came after it', async () => {
    const home = freshHome();
    const log = openAuditLog(home);
    const queued = log.appendWithNext(body('load'));
    await log.close();
    expect((await queued).seq).toBe(1);
    expect(verifyAuditHome(home)).toMatchObject({ ok: true, records: 1 });
  });
});
