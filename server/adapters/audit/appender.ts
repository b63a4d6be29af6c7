import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readSync, fstatSync, ftruncateSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { GENESIS, monthFileName, recomputeHash, sealRecord, type AuditBody, type AuditRecord, type ChainHead } from '../../core/audit/record.js';

export const sha256Text = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const MONTH_FILE = /^\d{4}-\d{2}\.jsonl$/u;

/**
 * The append-only audit log under `<home>/logs/audit/` (SPEC §7). Group commit: appends that
 * arrive while a write and fsync are in flight (on libuv's thread pool) wait for the next flush,
 * and each flush writes every waiting record with one write and one fsync per month file. Nobody's promise resolves before its record
 * is durable. After a failed write or fsync the appender refuses every later append: the caller
 * must deny (fail closed), and a restart re-reads the tail.
 */
export class AuditAppender {
  private head: ChainHead;
  private pending: { body: AuditBody; resolve: (r: AuditRecord) => void; reject: (e: Error) => void }[] = [];
  private flushing = false;
  private broken: Error | undefined;
  private readonly files = new Map<string, FileHandle>();

  private constructor(
    readonly dir: string,
    head: ChainHead,
    /** Set when opening found and removed a torn final line (a crash mid-write). */
    readonly repaired: { file: string; removedBytes: number } | undefined,
  ) {
    this.head = head;
  }

  static open(dir: string): AuditAppender {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const files = readdirSync(dir).filter((f) => MONTH_FILE.test(f)).sort();
    const last = files.at(-1);
    if (last === undefined) return new AuditAppender(dir, GENESIS, undefined);
    const tail = readTail(join(dir, last));
    return new AuditAppender(dir, tail.head, tail.removedBytes > 0 ? { file: last, removedBytes: tail.removedBytes } : undefined);
  }

  get chainHead(): ChainHead {
    return this.head;
  }

  append(body: AuditBody): Promise<AuditRecord> {
    if (this.broken !== undefined) return Promise.reject(new AuditWriteError(`the audit log is unavailable: ${this.broken.message}`));
    return new Promise((resolve, reject) => {
      this.pending.push({ body, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) {
      this.flushing = false;
      return;
    }
    const sealed: AuditRecord[] = [];
    let head = this.head;
    for (const item of batch) {
      const record = sealRecord(item.body, head, sha256Text);
      sealed.push(record);
      head = record;
    }
    try {
      const byFile = new Map<string, string[]>();
      for (const record of sealed) {
        const file = monthFileName(record.ts);
        byFile.set(file, [...(byFile.get(file) ?? []), JSON.stringify(record) + '\n']);
      }
      for (const [file, lines] of byFile) {
        const handle = await this.handle(file);
        const buffer = Buffer.from(lines.join(''), 'utf8');
        let written = 0;
        while (written < buffer.length) written += (await handle.write(buffer, written)).bytesWritten;
        await handle.sync();
      }
    } catch (e) {
      this.broken = e instanceof Error ? e : new Error('write failed');
      const error = new AuditWriteError(`the audit write failed: ${this.broken.message}`);
      for (const item of [...batch, ...this.pending]) item.reject(error);
      this.pending = [];
      this.flushing = false;
      return;
    }
    this.head = head;
    batch.forEach((item, i) => {
      const record = sealed[i];
      if (record !== undefined) item.resolve(record);
    });
    // Whatever arrived during this flush goes in the next one.
    await this.flush();
  }

  private async handle(file: string): Promise<FileHandle> {
    let handle = this.files.get(file);
    if (handle === undefined) {
      handle = await open(join(this.dir, file), 'a', 0o600);
      this.files.set(file, handle);
      // A new month file must survive a crash too: sync the directory entry.
      const dir = await open(this.dir, 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    }
    return handle;
  }

  /** Waits for every pending append, then closes the files. */
  async close(): Promise<void> {
    while (this.flushing) await new Promise((r) => setImmediate(r));
    for (const handle of this.files.values()) await handle.close();
    this.files.clear();
  }
}

export class AuditWriteError extends Error {
  readonly code = 'AUDIT_WRITE_FAILED';
}

/**
 * Reads the chain head from the end of the newest file. A final line without its newline is a
 * write the crash interrupted (never acknowledged, because acknowledgement waits for fsync): it
 * is cut off so the next record starts on a clean line.
 */
function readTail(path: string): { head: ChainHead; removedBytes: number } {
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    let end = size;
    let removedBytes = 0;
    const lastByte = Buffer.alloc(1);
    if (size > 0) {
      readSync(fd, lastByte, 0, 1, size - 1);
      if (lastByte[0] !== 0x0a) {
        const cut = lastNewline(fd, size);
        removedBytes = size - cut;
        ftruncateSync(fd, cut);
        fsyncSync(fd);
        end = cut;
      }
    }
    if (end === 0) return { head: GENESIS, removedBytes };
    const start = lastNewline(fd, end - 1);
    const line = Buffer.alloc(end - 1 - start);
    readSync(fd, line, 0, line.length, start);
    const record = JSON.parse(line.toString('utf8')) as AuditRecord;
    if (recomputeHash(record, sha256Text) !== record.hash) throw new AuditWriteError(`the last audit record in ${path} does not match its hash`);
    return { head: { seq: record.seq, hash: record.hash }, removedBytes };
  } finally {
    closeSync(fd);
  }
}

/** Offset just after the last `\n` strictly before `before`, or 0. */
function lastNewline(fd: number, before: number): number {
  const chunk = Buffer.alloc(65_536);
  let position = before;
  while (position > 0) {
    const start = Math.max(0, position - chunk.length);
    const length = position - start;
    readSync(fd, chunk, 0, length, start);
    const at = chunk.subarray(0, length).lastIndexOf(0x0a);
    if (at !== -1) return start + at + 1;
    position = start;
  }
  return 0;
}
