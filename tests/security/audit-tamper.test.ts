import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditWriteError, openAuditLog, sha256Text } from '../../server/adapters/audit/appender.js';
import { CHECKPOINT_FILE, SIGNING_KEY_FILE } from '../../server/adapters/audit/checkpoint-store.js';
import { verifyAuditHome } from '../../server/adapters/audit/read-log.js';
import { sealRecord, type AuditRecord, type ChainHead } from '../../server/core/audit/record.js';
import { runOracle } from '../cli/run-oracle.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * SPEC §15 audit tampering: edit, delete, reorder, duplicate, truncate, rewrite, replay across
 * month files, torn last line. Every log is written by the real appender into a real home; each
 * case expects the exact reason code and the first bad location.
 */
const JAN = '2024-01.jsonl';
const FEB = '2024-02.jsonl';

let tree: TempTree;
let home = '';
const logPath = (file: string): string => join(home, 'logs', 'audit', file);
const readLines = (file: string): string[] => readFileSync(logPath(file), 'utf8').split('\n').slice(0, -1);
const writeLines = (file: string, lines: readonly string[]): void => {
  writeFileSync(logPath(file), lines.map((l) => `${l}\n`).join(''));
};
const at = (lines: readonly string[], i: number): string => {
  const l = lines[i];
  if (l === undefined) throw new TypeError(`no line ${i}`);
  return l;
};

/** Six January records, then six February ones: seq 1–6 in JAN, 7–12 in FEB. */
async function writeLog(): Promise<void> {
  const audit = openAuditLog(home);
  const appends: Promise<AuditRecord>[] = [];
  for (let i = 0; i < 12; i += 1) {
    const month = i < 6 ? '01' : '02';
    appends.push(audit.append({ kind: 'decision', ts: `2024-${month}-1${i % 6}T12:00:00.000Z`, actor: 'agent', tool: 'fs.read', decision: 'allow', args_digest: `sha256:${sha256Text(String(i))}` }));
  }
  await Promise.all(appends);
  await audit.close();
}

function expectFault(code: string, file: string | null, line: number | null, seq: number | null) {
  const report = verifyAuditHome(home);
  expect(report.ok).toBe(false);
  expect(report.fault).toMatchObject({ code, file, line, seq });
  return report;
}

describe('audit tampering (SPEC §7, §15)', () => {
  beforeEach(async () => {
    tree = tempTree('oracle-audit-');
    home = tree.dir('home');
    await writeLog();
  });
  afterEach(() => {
    tree.dispose();
  });

  it('verifies an intact log through `oracle audit verify` (exit 0)', async () => {
    expect(verifyAuditHome(home)).toMatchObject({ ok: true, records: 12, files: 2, head: { seq: 12 }, checkpoint: { seq: 12 }, fault: null });
    const run = await runOracle(['audit', 'verify', '--home', home]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('audit log intact: 12 records in 2 files, head seq 12');
  });

  it('edit one byte in a record → BAD_HASH', async () => {
    const lines = readLines(JAN);
    lines[2] = at(lines, 2).replace('"actor":"agent"', '"actor":"agenT"');
    writeLines(JAN, lines);
    expectFault('BAD_HASH', JAN, 3, 3);
    const run = await runOracle(['audit', 'verify', '--home', home, '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, records: 2, fault: { code: 'BAD_HASH', file: JAN, line: 3, seq: 3 } });
  });

  it('delete a line → MISSING_RECORD', async () => {
    writeLines(JAN, readLines(JAN).filter((_, i) => i !== 2));
    expectFault('MISSING_RECORD', JAN, 3, 4);
    const run = await runOracle(['audit', 'verify', '--home', home]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`audit log BROKEN at \`${JAN}\` line 3 (seq 4): MISSING_RECORD: expected seq 3, found 4`);
  });

  it('swap two lines → OUT_OF_ORDER', () => {
    const lines = readLines(JAN);
    writeLines(JAN, [at(lines, 0), at(lines, 1), at(lines, 3), at(lines, 2), at(lines, 4), at(lines, 5)]);
    expectFault('OUT_OF_ORDER', JAN, 3, 4);
  });

  it('duplicate a line → DUPLICATE', () => {
    const lines = readLines(FEB);
    writeLines(FEB, [at(lines, 0), at(lines, 1), at(lines, 1), ...lines.slice(2)]);
    expectFault('DUPLICATE', FEB, 3, 8);
  });

  it('truncate the tail (the last 2 records) → TRUNCATED, caught by the checkpoint', () => {
    writeLines(FEB, readLines(FEB).slice(0, 4));
    const report = expectFault('TRUNCATED', FEB, 5, 11);
    expect(report.fault?.message).toContain('the log ends at seq 10 but its checkpoint names seq 12');
    // The whole newest month file deleted: the same.
    rmSync(logPath(FEB));
    expectFault('TRUNCATED', JAN, 7, 7);
  });

  it('rewrite the chain from the middle with recomputed hashes → CHECKPOINT_MISMATCH', () => {
    const all = [...readLines(JAN), ...readLines(FEB)].map((l) => JSON.parse(l) as AuditRecord);
    const forged: AuditRecord[] = all.slice(0, 4);
    let head: ChainHead = { seq: 4, hash: forged[3]?.hash ?? '' };
    for (const record of all.slice(4)) {
      const { seq, prev, hash, ...body } = record;
      head = sealRecord({ ...body, decision: 'deny' }, head, sha256Text);
      forged.push(head as AuditRecord);
    }
    writeLines(JAN, forged.slice(0, 6).map((r) => JSON.stringify(r)));
    writeLines(FEB, forged.slice(6).map((r) => JSON.stringify(r)));
    expectFault('CHECKPOINT_MISMATCH', FEB, 6, 12);
    // ...and the appender refuses to append to it and re-sign (that would launder the rewrite).
    expect(() => openAuditLog(home)).toThrow(AuditWriteError);
  });

  it('replay a record across month files → WRONG_MONTH_FILE, or DUPLICATE when the month fits', () => {
    const jan = readLines(JAN);
    const feb = readLines(FEB);
    writeLines(JAN, [...jan, at(feb, 0)]);
    expectFault('WRONG_MONTH_FILE', JAN, 7, 7);
    writeLines(JAN, jan);
    writeLines(FEB, [at(jan, 2), ...feb]);
    expectFault('WRONG_MONTH_FILE', FEB, 1, 3);
    writeLines(FEB, [at(feb, 0), at(jan, 2), ...feb.slice(1)]);
    expectFault('DUPLICATE', FEB, 2, 3);
  });

  it('torn last line → TORN_TAIL only, everything before it verified; the appender repairs it', async () => {
    const feb = readLines(FEB);
    appendFileSync(logPath(FEB), at(feb, 5).slice(0, 60));
    const report = expectFault('TORN_TAIL', FEB, 7, 13);
    expect(report.records).toBe(12);
    const run = await runOracle(['audit', 'verify', '--home', home]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('only the final line is torn');
    expect(run.stdout).toContain('every record before it verified (12 records, head seq 12)');

    const audit = openAuditLog(home);
    expect(audit.repaired).toEqual({ file: FEB, removedBytes: 60 });
    await audit.append({ kind: 'audit.repair', ts: '2024-02-20T00:00:00.000Z', actor: 'oracle', detail: { file: FEB, removed_bytes: 60 } });
    await audit.close();
    expect(verifyAuditHome(home)).toMatchObject({ ok: true, records: 13, checkpoint: { seq: 13 } });
  });

  it('a missing checkpoint, a forged one or another key is never silently accepted', () => {
    const data = join(home, 'data');
    const checkpoint = readFileSync(join(data, CHECKPOINT_FILE), 'utf8');
    writeFileSync(join(data, CHECKPOINT_FILE), checkpoint.replace(/"ts":"[^"]+"/u, '"ts":"2030-01-01T00:00:00.000Z"'));
    expectFault('CHECKPOINT_BAD_SIGNATURE', null, null, 12);
    expect(() => openAuditLog(home)).toThrow(AuditWriteError);
    rmSync(join(data, CHECKPOINT_FILE));
    expectFault('NO_CHECKPOINT', null, null, null);
    expect(() => openAuditLog(home)).toThrow(/no checkpoint/u);
    writeFileSync(join(data, CHECKPOINT_FILE), checkpoint);
    rmSync(join(data, SIGNING_KEY_FILE));
    expectFault('NO_SIGNING_KEY', null, null, 12);
  });
});
