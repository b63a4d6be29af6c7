import { CHAIN_HASH, checkSignature, parseCheckpoint, type Checkpoint, type CheckpointParse, type CheckpointVerifier } from './checkpoint.js';
import { GENESIS, monthFileName, recomputeHash, type AuditRecord, type ChainHead, type Sha256Hex } from './record.js';

/**
 * `oracle audit verify` (SPEC §7, §12, §15): reads every month file in order and reports the
 * FIRST bad record, where it is and why, with a stable code. Pure: the files come in as line
 * iterables, hashing and signature checks as functions. One streaming pass holds only the head;
 * on a seq anomaly a second pass over the same files says whether it is a duplicate, a reorder or
 * a gap.
 */
export const AUDIT_FAULT_CODES = [
  /** A line is not strict UTF-8 JSON. */
  'BAD_JSON',
  /** JSON, but not a record: `seq`, `prev`, `hash`, `ts` or `kind` missing or malformed. */
  'BAD_RECORD',
  /** The record does not hash to its own `hash`: its bytes were edited. */
  'BAD_HASH',
  /** The hash matches, but the bytes are not what the appender writes (duplicate keys, spacing). */
  'NON_CANONICAL',
  /** A line other than the last of the last file lacks its newline. */
  'UNTERMINATED_LINE',
  /** The record's ts month does not fit the file it is in (a replay across month files). */
  'WRONG_MONTH_FILE',
  /** An exact copy of an earlier record (seq and hash). */
  'DUPLICATE',
  /** The expected seq appears later in the log: records were reordered. */
  'OUT_OF_ORDER',
  /** The expected seq appears nowhere: records were deleted. */
  'MISSING_RECORD',
  /** The seq goes backwards to a value whose record differs (a forged or spliced record). */
  'BAD_SEQ',
  /** The seq is right but `prev` is not the previous record's hash. */
  'BROKEN_LINK',
  /** The log ends before the record its checkpoint names: the tail was cut off. */
  'TRUNCATED',
  /** The record at the checkpoint's seq has another hash: the chain was rewritten. */
  'CHECKPOINT_MISMATCH',
  /** The checkpoint's signature does not verify with this home's key. */
  'CHECKPOINT_BAD_SIGNATURE',
  /** The checkpoint file is not a well-formed checkpoint. */
  'BAD_CHECKPOINT',
  /** The log has records but there is no checkpoint. */
  'NO_CHECKPOINT',
  /**
   * The home's signing key exists, so a log was started here (the key is made when the log is
   * first opened, and the log is anchored before its first record), yet there is neither a record
   * nor a checkpoint: the log and its checkpoint were removed.
   */
  'LOG_REMOVED',
  /** The home folder itself is not there (a mistyped `--home`): nothing was verified. */
  'NO_HOME',
  /** A checkpoint exists but the key to check it is missing or unusable. */
  'NO_SIGNING_KEY',
  /** Only the final line of the last file is torn (a write the crash interrupted, never acknowledged). */
  'TORN_TAIL',
  /**
   * The chain verifies, but records follow the seq the checkpoint signed: nothing vouches for
   * them. A gate that crashed leaves up to one checkpoint interval of them; anything that can
   * write the log file (not the data folder) can add them. The next start signs them, and says
   * in the log that it did (`audit.repair`, outcome `unsigned-tail`).
   */
  'UNSIGNED_TAIL',
] as const;

export type AuditFaultCode = (typeof AUDIT_FAULT_CODES)[number];

export interface LogLine {
  readonly bytes: Uint8Array;
  /** False only for a final line without its `\n`. */
  readonly terminated: boolean;
}

export interface LogFile {
  /** `YYYY-MM.jsonl`; files arrive sorted by name. */
  readonly name: string;
  /** Each call reads the file again from the start. */
  readonly lines: () => Iterable<LogLine>;
}

export type CheckpointInput =
  | { readonly state: 'absent' }
  | { readonly state: 'present'; readonly text: string }
  /** The file exists but could not be read safely (a link, another owner, too large). */
  | { readonly state: 'unreadable'; readonly reason: string };
export type KeyInput =
  | { readonly ok: true; readonly verifier: CheckpointVerifier }
  /** `present`: the key file exists but is unusable; false: there is none (no log was ever opened here). */
  | { readonly ok: false; readonly reason: string; readonly present: boolean };

export interface VerifyInput {
  readonly files: readonly LogFile[];
  readonly checkpoint: CheckpointInput;
  readonly key: KeyInput;
  readonly sha256: Sha256Hex;
}

export interface AuditFault {
  readonly code: AuditFaultCode;
  /** The month file and 1-based line; null when the fault is not at a line (NO_CHECKPOINT). */
  readonly file: string | null;
  readonly line: number | null;
  /** The seq the bad record claims, or the seq expected there when it has none. */
  readonly seq: number | null;
  readonly message: string;
}

export interface VerifyReport {
  readonly ok: boolean;
  /** Records verified before the fault (all of them when ok). */
  readonly records: number;
  readonly files: number;
  readonly head: ChainHead;
  readonly checkpoint: Pick<Checkpoint, 'seq' | 'hash' | 'ts'> | null;
  readonly fault: AuditFault | null;
  /** When the log's first record says it started over because the log before it was missing (runtime.ts). */
  readonly started_over: { readonly ts: string } | null;
  /** Records a start found after the last signed checkpoint and signed then, as the log says (runtime.ts). */
  readonly signed_late: readonly SignedLate[];
}

export interface SignedLate {
  readonly from_seq: number;
  readonly to_seq: number;
  /** When the start that signed them said so. */
  readonly ts: string;
}

interface Position {
  readonly index: number;
  readonly file: string;
  readonly line: number;
}

/** How far a running gate's checkpoint may trail its log: the checkpoint store's interval. */
export const CHECKPOINT_LAG_MS = 100;

const RECORD_TS = /^\d{4}-(?:0[1-9]|1[0-2])-\d{2}T/u;
// ignoreBOM keeps a byte-order mark in the text, so a line with one is not the appender's (a
// reader that skips such a line would hide a record the chain verified; red team, session 32).
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

type Parsed = { readonly ok: true; readonly record: AuditRecord } | { readonly ok: false; readonly code: AuditFaultCode; readonly seq: number | null; readonly message: string };

/** One line, strictly (STYLE 7): UTF-8, a plain JSON object, the record fields, its hash, its bytes. */
function parseLine(bytes: Uint8Array, sha256: Sha256Hex): Parsed {
  let text: string;
  let value: unknown;
  try {
    text = decoder.decode(bytes);
    value = JSON.parse(text);
  } catch {
    return { ok: false, code: 'BAD_JSON', seq: null, message: 'the line is not UTF-8 JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, code: 'BAD_RECORD', seq: null, message: 'the line is not a JSON object' };
  const { seq, prev, hash, ts, kind } = value as Record<string, unknown>;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) return { ok: false, code: 'BAD_RECORD', seq: null, message: '`seq` is not a positive integer' };
  const bad = (message: string): Parsed => ({ ok: false, code: 'BAD_RECORD', seq, message });
  if (typeof prev !== 'string' || !CHAIN_HASH.test(prev)) return bad('`prev` is not a sha256 chain hash');
  if (typeof hash !== 'string' || !CHAIN_HASH.test(hash)) return bad('`hash` is not a sha256 chain hash');
  if (typeof ts !== 'string' || !RECORD_TS.test(ts)) return bad('`ts` is not an ISO 8601 time');
  if (typeof kind !== 'string') return bad('`kind` is missing');
  const record = value as AuditRecord;
  let computed: string;
  try {
    computed = recomputeHash(record, sha256);
  } catch {
    return bad('the record has no RFC 8785 canonical form');
  }
  if (computed !== hash) return { ok: false, code: 'BAD_HASH', seq, message: 'the record does not match its hash (its bytes were edited)' };
  // The hash covers the parsed value; the bytes must be the ones the appender wrote, so a
  // duplicate key (the last one wins in JSON.parse) cannot show a reader one thing and hash another.
  if (JSON.stringify(value) !== text) return { ok: false, code: 'NON_CANONICAL', seq, message: 'the hash matches but the line is not as the appender wrote it (duplicate keys or spacing)' };
  return { ok: true, record };
}

interface Located {
  readonly at: Position;
  readonly seq: number;
  readonly hash: string;
}

/** Every line that parses to something with a numeric seq, for the classification pass. */
function* scan(files: readonly LogFile[]): Generator<Located> {
  for (const [index, file] of files.entries()) {
    let line = 0;
    for (const { bytes } of file.lines()) {
      line += 1;
      try {
        const value = JSON.parse(decoder.decode(bytes)) as { seq?: unknown; hash?: unknown };
        if (typeof value.seq === 'number' && typeof value.hash === 'string') yield { at: { index, file: file.name, line }, seq: value.seq, hash: value.hash };
      } catch {
        // unreadable lines play no part in classifying a seq anomaly
      }
    }
  }
}

const before = (a: Position, b: Position): boolean => a.index < b.index || (a.index === b.index && a.line < b.line);
const where = (p: Position): string => `\`${p.file}\` line ${p.line}`;

/** Which seq anomaly this is (the first pass found `record` at `at` where `expected` belonged). */
function classifySeq(files: readonly LogFile[], record: AuditRecord, at: Position, expected: number): Omit<AuditFault, 'file' | 'line'> {
  const seq = record.seq;
  if (seq < expected) {
    for (const other of scan(files)) {
      if (!before(other.at, at)) break;
      if (other.seq === seq && other.hash === record.hash) return { code: 'DUPLICATE', seq, message: `seq ${seq} repeats the record at ${where(other.at)}` };
    }
    return { code: 'BAD_SEQ', seq, message: `seq goes back from ${expected - 1} to ${seq} with a record that is not a copy` };
  }
  for (const other of scan(files)) {
    if (before(at, other.at) && other.seq === expected) return { code: 'OUT_OF_ORDER', seq, message: `expected seq ${expected}, found ${seq}; seq ${expected} comes later, at ${where(other.at)}` };
  }
  const missing = seq - expected === 1 ? `seq ${expected} is` : `seqs ${expected} to ${seq - 1} are`;
  return { code: 'MISSING_RECORD', seq, message: `expected seq ${expected}, found ${seq}: ${missing} missing from the log` };
}

/** SPEC §7 month files: a record lives in its ts month, or later if an earlier-month record came late. */
function monthFault(record: AuditRecord, file: string, first: boolean): string | undefined {
  const own = monthFileName(record.ts);
  if (own > file) return `a record of \`${record.ts.slice(0, 7)}\` is in \`${file}\`; it belongs in \`${own}\``;
  if (first && own !== file) return `\`${file}\` must begin with a record of its own month, not of \`${record.ts.slice(0, 7)}\``;
  return undefined;
}

interface Pass {
  readonly head: ChainHead;
  readonly headAt: Position | undefined;
  readonly records: number;
  readonly fault: AuditFault | undefined;
  readonly torn: Position | undefined;
  /** The record at the checkpoint's seq, if the log reached it. */
  readonly anchor: { readonly at: Position | undefined; readonly hash: string } | undefined;
  readonly startedOver: { readonly ts: string } | undefined;
  readonly signedLate: readonly SignedLate[];
}

function chainPass(files: readonly LogFile[], sha256: Sha256Hex, anchorSeq: number | undefined): Pass {
  let head = GENESIS;
  let headAt: Position | undefined;
  let records = 0;
  // A checkpoint of the fresh log names GENESIS itself, which is in no file.
  let anchor: Pass['anchor'] = anchorSeq === 0 ? { at: undefined, hash: GENESIS.hash } : undefined;
  let startedOver: Pass['startedOver'];
  const signedLate: SignedLate[] = [];
  const stop = (at: Position, fault: Omit<AuditFault, 'file' | 'line'>): Pass => ({ head, headAt, records, anchor, torn: undefined, fault: { ...fault, file: at.file, line: at.line }, startedOver, signedLate });
  for (const [index, file] of files.entries()) {
    let line = 0;
    let first = true;
    for (const { bytes, terminated } of file.lines()) {
      line += 1;
      const at = { index, file: file.name, line };
      if (!terminated) {
        // INVARIANT: the appender acknowledges a record only after its newline is fsynced, so an
        // unterminated final line was never acknowledged; anywhere else it is damage.
        if (index === files.length - 1) return { head, headAt, records, anchor, torn: at, fault: undefined, startedOver, signedLate };
        return stop(at, { code: 'UNTERMINATED_LINE', seq: head.seq + 1, message: 'the last line of a month file that is not the newest has no newline' });
      }
      const parsed = parseLine(bytes, sha256);
      if (!parsed.ok) return stop(at, { code: parsed.code, seq: parsed.seq ?? head.seq + 1, message: parsed.message });
      const record = parsed.record;
      const month = monthFault(record, file.name, first);
      if (month !== undefined) return stop(at, { code: 'WRONG_MONTH_FILE', seq: record.seq, message: month });
      if (record.seq !== head.seq + 1) return stop(at, classifySeq(files, record, at, head.seq + 1));
      if (record.prev !== head.hash) return stop(at, { code: 'BROKEN_LINK', seq: record.seq, message: `\`prev\` is not the hash of seq ${head.seq}` });
      head = { seq: record.seq, hash: record.hash };
      headAt = at;
      records += 1;
      first = false;
      if (record.seq === anchorSeq) anchor = { at, hash: record.hash };
      if (record.seq === 1 && record.kind === 'audit.repair' && record.outcome === 'log-missing') startedOver = { ts: record.ts };
      if (record.kind === 'audit.repair' && record.outcome === 'unsigned-tail') {
        const { from_seq: from, to_seq: to } = (record.detail ?? {}) as { from_seq?: unknown; to_seq?: unknown };
        if (typeof from === 'number' && typeof to === 'number') signedLate.push({ from_seq: from, to_seq: to, ts: record.ts });
      }
    }
  }
  return { head, headAt, records, anchor, torn: undefined, fault: undefined, startedOver, signedLate };
}

function readCheckpoint(input: CheckpointInput): CheckpointParse | undefined {
  switch (input.state) {
    case 'absent':
      return undefined;
    case 'present':
      return parseCheckpoint(input.text);
    case 'unreadable':
      return { ok: false, reason: input.reason };
  }
}

export function verifyAuditLog(input: VerifyInput): VerifyReport {
  const parsed = readCheckpoint(input.checkpoint);
  const checkpoint = parsed?.ok === true ? parsed.checkpoint : undefined;
  const pass = chainPass(input.files, input.sha256, checkpoint?.seq);
  const report = (fault: AuditFault | undefined): VerifyReport => ({
    ok: fault === undefined,
    records: pass.records,
    files: input.files.length,
    head: pass.head,
    checkpoint: checkpoint === undefined ? null : { seq: checkpoint.seq, hash: checkpoint.hash, ts: checkpoint.ts },
    fault: fault ?? null,
    started_over: pass.startedOver ?? null,
    signed_late: pass.signedLate,
  });
  // The first bad record wins; the checkpoint is judged only against a chain that verified.
  if (pass.fault !== undefined) return report(pass.fault);
  const none = { file: null, line: null };
  const end = pass.headAt ?? pass.torn;
  const atEnd = { file: end?.file ?? null, line: end === undefined ? null : pass.headAt === end ? end.line + 1 : end.line };
  if (parsed === undefined) {
    if (pass.records > 0) return report({ code: 'NO_CHECKPOINT', ...none, seq: null, message: 'the log has records but no signed checkpoint (a fresh log is anchored before its first record), so truncation or rewrite cannot be ruled out' });
    // No record and no checkpoint is a fresh home only while no log was ever opened: the key is
    // made when one is, before its first record. With the key here, an empty log is a removed one
    // (or, rarely, a gate that crashed before its first write; either way nothing vouches for it).
    const keyPresent = input.key.ok || input.key.present;
    if (pass.torn === undefined && keyPresent) {
      return report({ code: 'LOG_REMOVED', ...none, seq: null, message: 'the audit signing key exists, so a log was started here, but there is no record and no checkpoint: the log and its checkpoint were removed' });
    }
  } else if (!parsed.ok) {
    return report({ code: 'BAD_CHECKPOINT', ...none, seq: null, message: parsed.reason });
  } else if (!input.key.ok) {
    return report({ code: 'NO_SIGNING_KEY', ...none, seq: parsed.checkpoint.seq, message: input.key.reason });
  } else {
    const cp = parsed.checkpoint;
    const signature = checkSignature(cp, input.key.verifier);
    if (signature !== 'valid') {
      const message = signature === 'wrong_key' ? 'the checkpoint was signed by another key' : 'the checkpoint signature does not verify';
      return report({ code: 'CHECKPOINT_BAD_SIGNATURE', ...none, seq: cp.seq, message });
    }
    if (pass.anchor === undefined) {
      const cut = pass.records === 0 && pass.torn === undefined ? `the log has no record at all but its checkpoint names seq ${cp.seq}: the log was removed or truncated to nothing` : `the log ends at seq ${pass.head.seq} but its checkpoint names seq ${cp.seq}: records were cut off`;
      return report({ code: 'TRUNCATED', ...atEnd, seq: pass.head.seq + 1, message: cut });
    }
    if (pass.anchor.hash !== cp.hash) {
      const { file = null, line = null } = pass.anchor.at ?? {};
      return report({ code: 'CHECKPOINT_MISMATCH', file, line, seq: cp.seq, message: `seq ${cp.seq} is not the record the checkpoint signed: the chain was rewritten at or before it` });
    }
  }
  if (checkpoint !== undefined && pass.head.seq > checkpoint.seq) {
    const range = pass.head.seq === checkpoint.seq + 1 ? `seq ${pass.head.seq} follows` : `seqs ${checkpoint.seq + 1} to ${pass.head.seq} follow`;
    const message = `${range} the last signed checkpoint (seq ${checkpoint.seq}), so nothing vouches for them: a gate that crashed (or one still running, whose checkpoint follows within ${String(CHECKPOINT_LAG_MS)} ms) left them, or someone who could write the log file added them; the next start signs them and says so in the log`;
    return report({ code: 'UNSIGNED_TAIL', ...atEnd, seq: checkpoint.seq + 1, message });
  }
  if (pass.torn !== undefined) {
    const { file, line } = pass.torn;
    const message = `only the final line is torn (a write cut short by a crash, never acknowledged); every record before it verified (${pass.records} records, head seq ${pass.head.seq})`;
    return report({ code: 'TORN_TAIL', file, line, seq: pass.head.seq + 1, message });
  }
  return report(undefined);
}
