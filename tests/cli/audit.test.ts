import { appendFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAuditLog, sha256Text } from '../../server/adapters/audit/appender.js';
import { sealRecord, type AuditRecord } from '../../server/core/audit/record.js';
import { CHECKPOINT_FILE } from '../../server/adapters/audit/checkpoint-store.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { openRuntime } from '../../server/app/runtime.js';
import { runOracle } from './run-oracle.js';

/**
 * `oracle audit verify` through the built command (SPEC §12) where there is nothing to verify:
 * a home that is not there, and a home whose log and checkpoint were removed while its signing
 * key (so a log was started) stayed. Neither is ever "intact" with exit 0.
 */
describe('oracle audit verify with no log to read', () => {
  let tree: TempTree;
  let home = '';

  beforeEach(async () => {
    tree = tempTree('oracle-cli-audit-');
    home = tree.dir('home');
    const audit = openAuditLog(home);
    await audit.append({ kind: 'decision', ts: new Date().toISOString(), actor: 'agent', tool: 'fs.read', decision: 'allow' });
    await audit.close();
  });
  afterEach(() => {
    tree.dispose();
  });

  it('verifies the log written (the baseline)', async () => {
    const run = await runOracle(['audit', 'verify', '--home', home]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('audit log intact: 1 records');
  });

  it('a home that does not exist: NO_HOME naming the path, exit 1', async () => {
    const missing = join(tree.root, 'does-not-exist');
    const run = await runOracle(['audit', 'verify', '--home', missing]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(`audit log NOT VERIFIED: NO_HOME: the home \`${missing}\` does not exist: nothing was verified\n`);
    const json = await runOracle(['audit', 'verify', '--json', '--home', missing]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, records: 0, fault: { code: 'NO_HOME' } });
  });

  it('logs/ and the checkpoint deleted, the signing key kept: LOG_REMOVED, exit 1', async () => {
    rmSync(join(home, 'logs'), { recursive: true });
    rmSync(join(home, 'data', CHECKPOINT_FILE));
    const run = await runOracle(['audit', 'verify', '--home', home]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('audit log BROKEN: LOG_REMOVED: the audit signing key exists, so a log was started here');
    expect(run.stdout).not.toContain('intact');
  });

  it('a gate started again on a home whose log was removed says so in the new log’s first record, and verify says it started over', async () => {
    rmSync(join(home, 'logs'), { recursive: true });
    rmSync(join(home, 'data', CHECKPOINT_FILE));
    const runtime = await openRuntime({ home, policy: join(tree.root, 'none.yaml'), actor: 'test' });
    await runtime.close();
    const [first] = auditRecords(home);
    expect(first).toMatchObject({ seq: 1, kind: 'audit.repair', outcome: 'log-missing' });
    expect(String((first?.['detail'] as { reason?: string } | undefined)?.reason)).toContain('the audit log and its checkpoint were missing although the signing key was here');
    const run = await runOracle(['audit', 'verify', '--home', home]);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain('NOTE: this log started over on');
    const json = await runOracle(['audit', 'verify', '--json', '--home', home]);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, started_over: { ts: first?.['ts'] } });
  });

  it('a fresh home’s first start is not a restart', async () => {
    const fresh = tree.dir('fresh-gate');
    const runtime = await openRuntime({ home: fresh, policy: join(tree.root, 'none.yaml'), actor: 'test' });
    await runtime.close();
    expect(auditRecords(fresh)[0]?.['kind']).toBe('policy.load');
    const run = await runOracle(['audit', 'verify', '--home', fresh]);
    expect(run.stdout).not.toContain('started over');
  });

  it('logs/ deleted, the checkpoint kept: TRUNCATED, the log removed or truncated to nothing', async () => {
    rmSync(join(home, 'logs'), { recursive: true });
    const run = await runOracle(['audit', 'verify', '--home', home]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('TRUNCATED: the log has no record at all but its checkpoint names seq 1: the log was removed or truncated to nothing');
  });

  it('a record appended after the checkpoint is UNSIGNED_TAIL (exit 1); the next start signs it and says so in the log', async () => {
    // Red team, session 32: a forged record appended while the gate was stopped verified as
    // intact, and the next start signed it silently.
    const records = auditRecords(home);
    const last = records.at(-1) as unknown as AuditRecord;
    const forged = sealRecord({ kind: 'approval', ts: last.ts, actor: 'device:dv_forged', action_id: 'ac_forged', outcome: 'approved' }, { seq: last.seq, hash: last.hash }, sha256Text);
    const month = readdirSync(join(home, 'logs', 'audit')).find((f) => f.endsWith('.jsonl')) ?? '';
    appendFileSync(join(home, 'logs', 'audit', month), JSON.stringify(forged) + '\n');
    const run = await runOracle(['audit', 'verify', '--home', home]);
    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout).toContain(`audit log: unsigned tail at \`${month}\` line ${String(records.length + 2)} (seq ${String(forged.seq)}): UNSIGNED_TAIL: seq ${String(forged.seq)} follows the last signed checkpoint`);
    const runtime = await openRuntime({ home, policy: join(tree.root, 'none.yaml'), actor: 'test' });
    await runtime.close();
    const repair = auditRecords(home).find((r) => r['kind'] === 'audit.repair');
    expect(repair).toMatchObject({ seq: forged.seq + 1, outcome: 'unsigned-tail', detail: { from_seq: forged.seq, to_seq: forged.seq } });
    const after = await runOracle(['audit', 'verify', '--home', home]);
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).toContain(`NOTE: seq ${String(forged.seq)} followed the signed checkpoint when the gate started on`);
    expect(after.stdout).toContain('nothing vouches for them');
  });

  it('a home where no log was ever opened is still an intact empty log', async () => {
    const fresh = tree.dir('fresh');
    const run = await runOracle(['audit', 'verify', '--home', fresh]);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain('audit log intact: 0 records');
  });
});
