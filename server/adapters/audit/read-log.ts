import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GENESIS } from '../../core/audit/record.js';
import { verifyAuditLog, type CheckpointInput, type LogFile, type LogLine, type VerifyReport } from '../../core/audit/verify.js';
import { MONTH_FILE, sha256Text } from './appender.js';
import { linesBackward } from './lines-backward.js';
import { loadVerifier, readCheckpointText } from './checkpoint-store.js';

/**
 * Reading side of the audit log for `oracle audit verify` (SPEC §7, §12): the month files of
 * `<home>/logs/audit` as streams of lines, and the checkpoint and key from `<home>/data`.
 * Read-only: it never creates, repairs or re-signs anything.
 */
const CHUNK = 256 * 1024;

/** Lines of a file in order, read in chunks; a final line without `\n` comes back unterminated. */
function* readLines(path: string): Generator<LogLine> {
  const fd = openSync(path, 'r');
  try {
    let carry = Buffer.alloc(0);
    let position = 0;
    for (;;) {
      const chunk = Buffer.alloc(CHUNK);
      const n = readSync(fd, chunk, 0, CHUNK, position);
      if (n === 0) break;
      position += n;
      const data = carry.length === 0 ? chunk.subarray(0, n) : Buffer.concat([carry, chunk.subarray(0, n)]);
      let start = 0;
      for (let at = data.indexOf(0x0a); at !== -1; at = data.indexOf(0x0a, start)) {
        yield { bytes: data.subarray(start, at), terminated: true };
        start = at + 1;
      }
      carry = data.subarray(start);
    }
    if (carry.length > 0) yield { bytes: carry, terminated: false };
  } finally {
    closeSync(fd);
  }
}

/** The `YYYY-MM.jsonl` files of the log directory in name (= chain) order; none if it is absent. */
export function monthFiles(dir: string): LogFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return names
    .filter((name) => MONTH_FILE.test(name))
    .sort()
    .map((name) => ({ name, lines: () => readLines(join(dir, name)) }));
}

/** Why `home` is not a folder to verify (absent, not a folder, unreadable), or undefined when it is one. */
function missingHome(home: string): string | undefined {
  try {
    return statSync(home).isDirectory() ? undefined : `the home \`${home}\` is not a folder`;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? `the home \`${home}\` does not exist` : `the home \`${home}\` cannot be read (${code ?? 'unknown error'})`;
  }
}

/**
 * Verifies the audit log of one home: chain, month files and signed checkpoint. A home that is
 * not there is NO_HOME, never an intact empty log: a mistyped `--home` must not show green.
 */
export function verifyAuditHome(home: string): VerifyReport {
  const missing = missingHome(home);
  if (missing !== undefined) {
    return { ok: false, records: 0, files: 0, head: GENESIS, checkpoint: null, fault: { code: 'NO_HOME', file: null, line: null, seq: null, message: `${missing}: nothing was verified` }, started_over: null, signed_late: [] };
  }
  const dataDir = join(home, 'data');
  let checkpoint: CheckpointInput;
  try {
    const text = readCheckpointText(dataDir);
    checkpoint = text === undefined ? { state: 'absent' } : { state: 'present', text };
  } catch (e) {
    // An unreadable or unsafe checkpoint file is reported as a bad checkpoint, never skipped.
    checkpoint = { state: 'unreadable', reason: e instanceof Error ? e.message : 'the checkpoint is unreadable' };
  }
  return verifyAuditLog({ files: monthFiles(join(home, 'logs', 'audit')), checkpoint, key: loadVerifier(dataDir), sha256: sha256Text });
}

/** How much of each month file's end the desktop's "newest records" reads: never the whole log. */
const TAIL_BYTES = 1024 * 1024;

/** The complete lines in the last `TAIL_BYTES` of a file (the first, cut line dropped when it was cut). */
function tailLines(path: string): string[] {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - TAIL_BYTES);
    const chunk = Buffer.alloc(size - start);
    const n = readSync(fd, chunk, 0, chunk.length, start);
    const lines = chunk.subarray(0, n).toString('utf8').split('\n');
    lines.pop(); // after the last \n: empty, or a line still being written
    return start > 0 ? lines.slice(1) : lines;
  } finally {
    closeSync(fd);
  }
}

/**
 * The newest `limit` records of the log, newest first, for the desktop's audit view: read from the
 * end of the newest month files, a bounded amount each. Unparsable lines are skipped here
 * (verification is what reports them).
 */
export function recentAuditRecords(home: string, limit: number): unknown[] {
  const out: unknown[] = [];
  const dir = join(home, 'logs', 'audit');
  for (const file of monthFiles(dir).reverse()) {
    for (const line of tailLines(join(dir, file.name)).reverse()) {
      try {
        out.push(JSON.parse(line));
      } catch {
        continue;
      }
      if (out.length >= limit) return out;
    }
  }
  return out;
}

/**
 * The records of the log from the newest back, one at a time, across month files: read in chunks
 * from the end, so a caller that stops early (at the last run's start) reads only that far.
 * Unparsable lines are skipped (verification is what reports them).
 */
export function* recordsNewestFirst(home: string): Generator {
  const dir = join(home, 'logs', 'audit');
  for (const file of monthFiles(dir).reverse()) {
    for (const line of linesBackward(join(dir, file.name))) {
      try {
        yield JSON.parse(line);
      } catch {
        continue;
      }
    }
  }
}

