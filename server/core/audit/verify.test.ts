import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseCheckpoint, signCheckpoint, type CheckpointSigner, type CheckpointVerifier } from './checkpoint.js';
import { GENESIS, sealRecord, type AuditRecord, type ChainHead } from './record.js';
import { verifyAuditLog, type CheckpointInput, type KeyInput, type LogFile } from './verify.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const KEY_ID = `test:${'a'.repeat(64)}`;
/** A stand-in signature scheme: the core only sees `sign` and `verify` as functions. */
const signer: CheckpointSigner = { keyId: KEY_ID, sign: (m) => sha256(`k|${m}`) };
const verifier: CheckpointVerifier = { keyId: KEY_ID, verify: (m, s) => sha256(`k|${m}`) === s };
const key: KeyInput = { ok: true, verifier };

function chain(months: readonly string[]): AuditRecord[] {
  const out: AuditRecord[] = [];
  let head: ChainHead = GENESIS;
  for (const [i, month] of months.entries()) {
    head = sealRecord({ kind: 'decision', ts: `${month}-0${1 + (i % 9)}T00:00:00.000Z`, actor: 'test', tool: `t${i}` }, head, sha256);
    out.push(head as AuditRecord);
  }
  return out;
}

const line = (r: unknown): string => JSON.stringify(r) + '\n';
const enc = new TextEncoder();

function files(byName: Record<string, string>): LogFile[] {
  return Object.keys(byName)
    .sort()
    .map((name) => ({
      name,
      *lines() {
        const text = byName[name] ?? '';
        const parts = text.split('\n');
        const last = parts.pop() ?? '';
        for (const part of parts) yield { bytes: enc.encode(part), terminated: true };
        if (last !== '') yield { bytes: enc.encode(last), terminated: false };
      },
    }));
}

function checkpointOf(record: AuditRecord | ChainHead): CheckpointInput {
  return { state: 'present', text: JSON.stringify(signCheckpoint(record, '2024-03-01T00:00:00.000Z', signer)) };
}

function run(byName: Record<string, string>, checkpoint?: CheckpointInput, keyInput: KeyInput = key) {
  return verifyAuditLog({ files: files(byName), checkpoint: checkpoint ?? { state: 'absent' }, key: keyInput, sha256 });
}

const JAN = ['2024-01', '2024-01', '2024-01', '2024-01', '2024-01'];
const records = chain([...JAN, '2024-02', '2024-02', '2024-02']);
const at = (i: number): AuditRecord => {
  const r = records[i];
  if (r === undefined) throw new TypeError(`no record ${i}`);
  return r;
};
const jan = records.slice(0, 5);
const feb = records.slice(5);
const intact = { '2024-01.jsonl': jan.map(line).join(''), '2024-02.jsonl': feb.map(line).join('') };
const anchored = checkpointOf(at(7));

describe('verifyAuditLog (SPEC §7, §12)', () => {
  it('accepts an intact chain across month files and the empty log of a home that never opened one', () => {
    const report = run(intact, anchored);
    expect(report).toMatchObject({ ok: true, records: 8, files: 2, head: { seq: 8 }, checkpoint: { seq: 8 }, fault: null });
    expect(run({}, undefined, { ok: false, reason: 'the signing key is missing', present: false })).toMatchObject({ ok: true, records: 0 });
  });

  it('says UNSIGNED_TAIL, never intact, for records past the checkpoint (a crash before it was signed, or records appended by hand)', () => {
    // Red team, session 32: a well-formed record appended after the checkpoint verified as intact.
    expect(run(intact, checkpointOf(at(5)))).toMatchObject({ ok: false, records: 8, fault: { code: 'UNSIGNED_TAIL', file: '2024-02.jsonl', line: 4, seq: 7 } });
    expect(run(intact, checkpointOf(at(5))).fault?.message).toContain('seqs 7 to 8 follow the last signed checkpoint (seq 6)');
    expect(run(intact, checkpointOf(GENESIS)).fault?.code).toBe('UNSIGNED_TAIL');
    expect(run({}, checkpointOf(GENESIS))).toMatchObject({ ok: true, records: 0, checkpoint: { seq: 0 } });
  });

  it('lists the records a start signed late, as the log itself says (audit.repair, unsigned-tail)', () => {
    const signedLater = sealRecord({ kind: 'audit.repair', ts: '2024-02-09T00:00:00.000Z', actor: 'oracle', outcome: 'unsigned-tail', detail: { from_seq: 7, to_seq: 8 } }, at(7), sha256);
    const log = { ...intact, '2024-02.jsonl': intact['2024-02.jsonl'] + line(signedLater) };
    expect(run(log, checkpointOf(signedLater))).toMatchObject({ ok: true, records: 9, signed_late: [{ from_seq: 7, to_seq: 8, ts: '2024-02-09T00:00:00.000Z' }] });
  });

  it('refuses a line with a byte-order mark before it: a reader that skips it would hide a verified record', () => {
    const bom = { ...intact, '2024-01.jsonl': line(at(0)) + '\ufeff' + jan.slice(1).map(line).join('') };
    expect(run(bom, anchored)).toMatchObject({ ok: false, fault: { code: 'BAD_JSON', file: '2024-01.jsonl', line: 2 } });
  });

  it('refuses a genesis checkpoint with another hash', () => {
    const forged = { state: 'present', text: JSON.stringify({ ...signCheckpoint(GENESIS, '2024-03-01T00:00:00.000Z', signer), hash: at(0).hash }) } as const;
    expect(run(intact, forged).fault?.code).toBe('CHECKPOINT_BAD_SIGNATURE');
  });

  it('accepts a late record of an earlier month in the head file, but not at the start of a file', () => {
    const late = chain(['2024-01', '2024-02', '2024-01']);
    const last = late[2];
    if (last === undefined) throw new TypeError('no record');
    expect(run({ '2024-01.jsonl': line(late[0]), '2024-02.jsonl': line(late[1]) + line(last) }, checkpointOf(last)).ok).toBe(true);
    const first = run({ '2024-01.jsonl': '', '2024-02.jsonl': jan.map(line).join('') });
    expect(first.fault).toMatchObject({ code: 'WRONG_MONTH_FILE', file: '2024-02.jsonl', line: 1, seq: 1 });
  });

  const cases: [string, Record<string, string>, string, number, number | null][] = [
    ['BAD_JSON', { ...intact, '2024-01.jsonl': line(at(0)) + '{not json\n' + jan.slice(2).map(line).join('') }, '2024-01.jsonl', 2, 2],
    ['BAD_RECORD', { ...intact, '2024-01.jsonl': line(at(0)) + line({ ...at(1), prev: 'x' }) }, '2024-01.jsonl', 2, 2],
    ['BAD_HASH', { ...intact, '2024-01.jsonl': line(at(0)) + line({ ...at(1), actor: 'mallory' }) }, '2024-01.jsonl', 2, 2],
    ['NON_CANONICAL', { ...intact, '2024-01.jsonl': line(at(0)) + line(at(1)).replace('{', '{"actor":"mallory",') }, '2024-01.jsonl', 2, 2],
    ['UNTERMINATED_LINE', { ...intact, '2024-01.jsonl': jan.map(line).join('').slice(0, -1) }, '2024-01.jsonl', 5, 5],
    ['WRONG_MONTH_FILE', { ...intact, '2024-01.jsonl': jan.map(line).join('') + line(at(5)) }, '2024-01.jsonl', 6, 6],
    ['DUPLICATE', { ...intact, '2024-01.jsonl': [0, 1, 1, 2].map((i) => line(at(i))).join('') }, '2024-01.jsonl', 3, 2],
    ['OUT_OF_ORDER', { ...intact, '2024-01.jsonl': [0, 2, 1, 3, 4].map((i) => line(at(i))).join('') }, '2024-01.jsonl', 2, 3],
    ['MISSING_RECORD', { ...intact, '2024-01.jsonl': [0, 1, 3, 4].map((i) => line(at(i))).join('') }, '2024-01.jsonl', 3, 4],
    ['BAD_SEQ', { ...intact, '2024-01.jsonl': jan.map(line).join(''), '2024-02.jsonl': line(sealRecord({ kind: 'decision', ts: '2024-02-02T00:00:00.000Z', actor: 'x' }, { seq: 1, hash: at(1).hash }, sha256)) }, '2024-02.jsonl', 1, 2],
    ['BROKEN_LINK', { ...intact, '2024-02.jsonl': line(sealRecord({ kind: 'decision', ts: '2024-02-02T00:00:00.000Z', actor: 'x' }, { seq: 5, hash: at(1).hash }, sha256)) }, '2024-02.jsonl', 1, 6],
  ];
  for (const [code, log, file, lineNo, seq] of cases) {
    it(`reports ${code} at the first bad line`, () => {
      expect(run(log, anchored)).toMatchObject({ ok: false, fault: { code, file, line: lineNo, seq } });
    });
  }

  it('reports TRUNCATED and CHECKPOINT_MISMATCH against the signed checkpoint', () => {
    expect(run({ '2024-01.jsonl': intact['2024-01.jsonl'] }, anchored)).toMatchObject({ ok: false, records: 5, fault: { code: 'TRUNCATED', file: '2024-01.jsonl', line: 6, seq: 6 } });
    expect(run({}, anchored).fault?.code).toBe('TRUNCATED');
    // Rewritten from seq 4 on with correctly recomputed hashes: the chain alone is intact.
    const other = [...jan.slice(0, 3)];
    let head: ChainHead = at(2);
    for (const r of [...jan.slice(3), ...feb]) {
      head = sealRecord({ kind: r.kind, ts: r.ts, actor: 'mallory' }, head, sha256);
      other.push(head as AuditRecord);
    }
    const log = { '2024-01.jsonl': other.slice(0, 5).map(line).join(''), '2024-02.jsonl': other.slice(5).map(line).join('') };
    expect(run(log).fault?.code).toBe('NO_CHECKPOINT');
    expect(run(log, anchored)).toMatchObject({ fault: { code: 'CHECKPOINT_MISMATCH', file: '2024-02.jsonl', line: 3, seq: 8 } });
  });

  it('refuses a checkpoint that is missing, malformed, forged or unverifiable', () => {
    expect(run(intact).fault).toMatchObject({ code: 'NO_CHECKPOINT', file: null, line: null });
    expect(run(intact, { state: 'present', text: '{}' }).fault?.code).toBe('BAD_CHECKPOINT');
    expect(run(intact, { state: 'unreadable', reason: 'a link' }).fault).toMatchObject({ code: 'BAD_CHECKPOINT', message: 'a link' });
    const good = JSON.parse(anchored.state === 'present' ? anchored.text : '') as Record<string, unknown>;
    expect(run(intact, { state: 'present', text: JSON.stringify({ ...good, seq: 7 }) }).fault?.code).toBe('CHECKPOINT_BAD_SIGNATURE');
    expect(run(intact, anchored, { ok: true, verifier: { ...verifier, keyId: `test:${'b'.repeat(64)}` } }).fault?.code).toBe('CHECKPOINT_BAD_SIGNATURE');
    expect(run(intact, anchored, { ok: false, reason: 'the signing key is missing', present: false }).fault?.code).toBe('NO_SIGNING_KEY');
  });

  it('says LOG_REMOVED, never intact, when a log was started (its key is there) but no record and no checkpoint remain', () => {
    // A home where no log was ever opened: nothing to vouch for, nothing lost.
    expect(run({}, undefined, { ok: false, reason: 'the signing key is missing', present: false })).toMatchObject({ ok: true, records: 0, fault: null });
    // The same emptiness with the key there: the log and its checkpoint were removed.
    for (const keyInput of [key, { ok: false, reason: 'mode 644', present: true } as const]) {
      expect(run({}, undefined, keyInput)).toMatchObject({ ok: false, records: 0, fault: { code: 'LOG_REMOVED', file: null, line: null, seq: null } });
      expect(run({ '2024-01.jsonl': '' }, undefined, keyInput).fault?.code).toBe('LOG_REMOVED');
    }
    // A fresh log anchored at GENESIS before its first record is intact with 0 records.
    expect(run({}, checkpointOf(GENESIS))).toMatchObject({ ok: true, records: 0, checkpoint: { seq: 0 } });
    // The log gone, its checkpoint kept: TRUNCATED, said as a removed log.
    expect(run({}, anchored).fault).toMatchObject({ code: 'TRUNCATED', message: expect.stringContaining('no record at all') as unknown });
  });

  it('reports only TORN_TAIL for a torn final line, after the chain and checkpoint verified', () => {
    const torn = { ...intact, '2024-02.jsonl': intact['2024-02.jsonl'] + line(at(7)).slice(0, 40) };
    const report = run(torn, anchored);
    expect(report).toMatchObject({ ok: false, records: 8, fault: { code: 'TORN_TAIL', file: '2024-02.jsonl', line: 4, seq: 9 } });
    expect(report.fault?.message).toContain('only the final line is torn');
    // A chain fault before the tail is the first bad record, not the torn tail.
    expect(run({ ...torn, '2024-01.jsonl': line(at(0)) + 'x\n' }, anchored).fault?.code).toBe('BAD_JSON');
  });

  it('parses checkpoints strictly', () => {
    const good = signCheckpoint(at(2), '2024-03-01T00:00:00.000Z', signer);
    expect(parseCheckpoint(JSON.stringify(good)).ok).toBe(true);
    expect(parseCheckpoint(JSON.stringify({ ...good, extra: 1 }))).toMatchObject({ ok: false, reason: 'the checkpoint has an unknown field `extra`' });
    expect(parseCheckpoint('[]').ok).toBe(false);
    expect(parseCheckpoint(JSON.stringify({ ...good, seq: -1 })).ok).toBe(false);
    expect(parseCheckpoint(JSON.stringify({ ...good, seq: 1.5 })).ok).toBe(false);
    expect(() => signCheckpoint({ seq: 0, hash: at(0).hash }, '2024-03-01T00:00:00.000Z', signer)).toThrow(TypeError);
  });
});
