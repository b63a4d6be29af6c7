import { OracleError } from '../../../shared/oracle-error.js';
import { sha256Hex } from '../sha256.js';
import { closeSync, constants, fsyncSync, mkdirSync, openSync, readdirSync, readSync, fstatSync, ftruncateSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { GENESIS, monthFileName, recomputeHash, sealRecordLine, type AuditBody, type AuditRecord, type ChainHead } from '../../core/audit/record.js';
import { CHECKPOINT_FILE, CheckpointStore } from './checkpoint-store.js';
import { linesBackward } from './lines-backward.js';

export const sha256Text = (text: string): string => sha256Hex(text);

export const MONTH_FILE = /^\d{4}-\d{2}\.jsonl$/u;

/**
 * Month files are opened O_DSYNC where the platform has it (Linux, macOS): a write returns once
 * it is durable, as write + fdatasync would (measured here: 245 µs against 330 µs p50 for an
 * fs/promises write then sync). 0 where there is none (Windows): each flush then syncs.
 */
const DSYNC: number = typeof constants.O_DSYNC === 'number' ? constants.O_DSYNC : 0;

export interface AppenderOptions {
  /** Signs a checkpoint of the head after every flush (SPEC §7); see `openAuditLog`. */
  readonly checkpoint?: CheckpointStore;
  /** How long to wait between attempts to write again after a failure. */
  readonly retryMs?: number;
  readonly now?: () => Date;
}

/** Why the log cannot be written now: the first error, since when, and how many appends were refused. */
export interface Unavailable {
  readonly reason: string;
  readonly since: string;
  readonly refused: number;
}

interface OpenState {
  readonly head: ChainHead;
  readonly file: string | undefined;
  readonly repaired: AuditAppender['repaired'];
  readonly needsGenesis: boolean;
  readonly startedOver: boolean;
  readonly unsignedTail: AuditAppender['unsignedTail'];
}

/**
 * The append-only audit log under `<home>/logs/audit/` (SPEC §7). Group commit: appends that
 * arrive while a write and fsync are in flight (on libuv's thread pool) wait for the next flush,
 * and each flush writes every waiting record with one write and one fsync per month file. Nobody's promise resolves before its record
 * is durable. After a failed write or fsync (a full disk, an I/O error) the log is *unavailable*:
 * every append is refused at once (the caller denies: fail closed) while a retry every second cuts
 * what the failed write left back to the last durable byte and writes an `audit.repair` record;
 * once that is durable the log is available again, without a restart (issue 14).
 *
 * With a checkpoint store (SPEC §7 signed checkpoint), a fresh log is anchored at GENESIS before
 * its first record, and each flush is followed by one signed checkpoint of the new head,
 * coalesced and off the commit path: a record is acknowledged once it is durable in the log, and
 * the checkpoint catches up one write later, at most every CHECKPOINT_INTERVAL_MS (100 ms).
 * Cutting only the records of that last window is not caught by the checkpoint; awaiting it on
 * every flush would close the window at about half the group-commit throughput with few writers
 * (measured: ~3.5k vs ~12k records/s with 8 writers).
 */
export class AuditAppender {
  private head: ChainHead;
  /** The month file holding the head: records never go to an earlier file than this. */
  private current: string | undefined;
  private pending: { body: AuditBody; resolve: (r: AuditRecord) => void; reject: (e: Error) => void }[] = [];
  private flushing = false;
  private broken: Error | undefined;
  private outage: { since: string; refused: number } | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly files = new Map<string, FileHandle>();
  /** Bytes of each open month file known durable: a failed write is cut back to this. */
  private readonly durable = new Map<string, number>();
  private readonly listeners = new Set<(state: Unavailable | undefined) => void>();
  private readonly retryMs: number;
  private readonly now: () => Date;

  /** Set when opening found and removed a torn final line (a crash mid-write). */
  readonly repaired: { file: string; removedBytes: number } | undefined;
  /** A fresh log: GENESIS is checkpointed before the first record is written. */
  private needsGenesis: boolean;
  /**
   * The log starts from nothing although its signing key was already here: the log and its
   * checkpoint were removed (or, rarely, the last start crashed before its first record). The
   * caller says so in the new log's first record, so the new chain does not pass for the only one.
   */
  readonly startedOver: boolean;
  /**
   * Records past the signed checkpoint when the log was opened (a crash within one checkpoint
   * interval, or records added by hand). The next checkpoint signs them, so the log says so first:
   * an `audit.repair` record (outcome `unsigned-tail`) goes before this opener's own records, or
   * is written at close. Signing them silently would vouch for what nothing vouched for (red
   * team, session 32); verify lists each such range.
   */
  readonly unsignedTail: { readonly from_seq: number; readonly to_seq: number } | undefined;

  private constructor(
    readonly dir: string,
    start: OpenState,
    private readonly checkpoint: CheckpointStore | undefined,
    options: AppenderOptions,
  ) {
    this.retryMs = options.retryMs ?? 1000;
    this.now = options.now ?? (() => new Date());
    this.head = start.head;
    this.current = start.file;
    this.repaired = start.repaired;
    this.needsGenesis = start.needsGenesis;
    this.startedOver = start.startedOver;
    this.unsignedTail = start.unsignedTail;
    if (this.unsignedTail !== undefined) {
      const reason = 'these records followed the last signed checkpoint when the log was opened: the last process crashed before signing them, or they were added to the log file; they are signed from here on, not vouched for';
      this.enqueue({ kind: 'audit.repair', ts: this.now().toISOString(), actor: 'oracle', outcome: 'unsigned-tail', detail: { ...this.unsignedTail, reason } }, true, false).catch(() => undefined);
    }
  }

  static open(dir: string, options: AppenderOptions = {}): AuditAppender {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const files = readdirSync(dir).filter((f) => MONTH_FILE.test(f)).sort();
    let repaired: AuditAppender['repaired'];
    let head = GENESIS;
    let file: string | undefined;
    // The newest file may be empty (created, then the crash came before its first write): the
    // head is then the last record of an earlier file.
    for (const name of files.toReversed()) {
      const tail = readTail(join(dir, name));
      if (tail.removedBytes > 0) repaired ??= { file: name, removedBytes: tail.removedBytes };
      if (tail.head.seq > 0) {
        head = tail.head;
        file = name;
        break;
      }
    }
    const anchor = options.checkpoint === undefined ? ANCHORED : checkAnchor(dir, files, head, options.checkpoint);
    const startedOver = options.checkpoint !== undefined && !anchor.anchored && options.checkpoint.keyExisted;
    return new AuditAppender(dir, { head, file, repaired, needsGenesis: !anchor.anchored, startedOver, unsignedTail: anchor.unsignedTail }, options.checkpoint, options);
  }

  get chainHead(): ChainHead {
    return this.head;
  }

  /** Resolves once the checkpoint has signed every record flushed so far (a verify waits for it). */
  async signed(): Promise<void> {
    await this.checkpoint?.idle();
  }

  /** Undefined while the log can be written; otherwise why not, since when, and what was refused. */
  get unavailable(): Unavailable | undefined {
    return this.broken === undefined || this.outage === undefined ? undefined : { reason: this.broken.message, ...this.outage };
  }

  /** Called with the new state each time the log becomes unavailable or available again. */
  onAvailability(listener: (state: Unavailable | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves true once the log can be written again; false if it is closed first. */
  async writable(): Promise<boolean> {
    while (this.broken !== undefined && !this.closed) await new Promise((r) => setTimeout(r, Math.min(this.retryMs, 250)));
    return !this.closed;
  }

  append(body: AuditBody): Promise<AuditRecord> {
    const checkpointFailure = this.checkpoint?.failure;
    if (this.broken === undefined && checkpointFailure !== undefined) this.fail(checkpointFailure);
    if (this.broken !== undefined) {
      if (this.outage !== undefined) this.outage.refused += 1;
      return Promise.reject(new AuditWriteError(`the audit log is unavailable: ${this.broken.message}`, true));
    }
    return this.enqueue(body, false);
  }

  /**
   * Queues a record without starting a write of its own: it goes in the next append's group
   * commit, before that append's records, or is written at close. For a process that appends
   * again at once (the hook's runtime: its load record, then the call's own), one write and one
   * sync instead of two.
   */
  appendWithNext(body: AuditBody): Promise<AuditRecord> {
    if (this.broken !== undefined) return this.append(body);
    return this.enqueue(body, false, false);
  }

  private enqueue(body: AuditBody, first: boolean, start = true): Promise<AuditRecord> {
    return new Promise((resolve, reject) => {
      const item = { body, resolve, reject };
      if (first) this.pending.unshift(item);
      else this.pending.push(item);
      if (start && !this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  /** The log just failed: refuse from now on, tell the listeners, and start retrying. */
  private fail(error: Error): void {
    // Only the start of an outage is news: a failed retry is the same outage going on.
    const first = this.outage === undefined;
    this.broken = error;
    this.outage ??= { since: this.now().toISOString(), refused: 0 };
    if (first) for (const listener of this.listeners) listener(this.unavailable);
    if (this.retryTimer === undefined && !this.closed) {
      this.retryTimer = setTimeout(() => void this.recover(), this.retryMs);
      this.retryTimer.unref();
    }
  }

  /**
   * One attempt to write again: cut each file back to its durable length (a torn tail repaired),
   * then write the repair record first of all; durable, the log is available again.
   */
  private async recover(): Promise<void> {
    this.retryTimer = undefined;
    if (this.closed || this.broken === undefined) return;
    while (this.flushing) await new Promise((r) => setImmediate(r));
    const outage = this.outage ?? { since: this.now().toISOString(), refused: 0 };
    const reason = this.broken.message;
    // A failed flush of the repair record calls fail() again; the outage it continues is this one.
    this.outage = outage;
    try {
      let removed = 0;
      for (const [file, handle] of this.files) {
        const size = (await handle.stat()).size;
        const good = this.durable.get(file) ?? size;
        if (size > good) {
          await handle.truncate(good);
          await handle.sync();
          removed += size - good;
        }
      }
      this.checkpoint?.retry();
      this.broken = undefined;
      const repaired = this.enqueue({ kind: 'audit.repair', ts: this.now().toISOString(), actor: 'oracle', outcome: 'recovered', detail: { reason, unavailable_since: outage.since, refused: outage.refused, removed_bytes: removed } }, true);
      await repaired;
      await this.checkpoint?.idle();
      if (this.checkpoint?.failure !== undefined) throw this.checkpoint.failure;
    } catch (e) {
      this.fail(e instanceof Error ? e : new Error('write failed'));
      return;
    }
    this.outage = undefined;
    for (const listener of this.listeners) listener(undefined);
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) {
      this.flushing = false;
      return;
    }
    const sealed: { record: AuditRecord; line: string; file: string; item: (typeof batch)[number] }[] = [];
    let head = this.head;
    let current = this.current;
    for (const item of batch) {
      let record: AuditRecord;
      let line: string;
      try {
        ({ record, line } = sealRecordLine(item.body, head, sha256Text));
      } catch {
        // A body with no canonical JSON form (a lone surrogate, say) fails alone; the caller denies.
        item.reject(new AuditWriteError('the audit record has no canonical JSON form'));
        continue;
      }
      // SPEC §7 month files, kept in chain order: a record whose ts month is earlier than the
      // head's file (a clock step back, or a writer that stamped its body before midnight) stays
      // in the head's file, so reading the files in name order reads the chain in seq order.
      const own = monthFileName(record.ts);
      const file = current !== undefined && current > own ? current : own;
      sealed.push({ record, line, file, item });
      head = record;
      current = file;
    }
    try {
      if (this.needsGenesis && this.checkpoint !== undefined) {
        this.checkpoint.update(GENESIS);
        await this.checkpoint.idle();
        if (this.checkpoint.failure !== undefined) throw this.checkpoint.failure;
        this.needsGenesis = false;
      }
      const byFile = new Map<string, string[]>();
      for (const { line, file } of sealed) {
        const lines = byFile.get(file);
        if (lines === undefined) byFile.set(file, [line, '\n']);
        else lines.push(line, '\n');
      }
      for (const [file, lines] of byFile) {
        const handle = await this.handle(file);
        const buffer = Buffer.from(lines.join(''), 'utf8');
        let written = 0;
        while (written < buffer.length) written += (await handle.write(buffer, written)).bytesWritten;
        // With O_DSYNC each write returned only once its bytes (and the file's new length) were on
        // the disk: one trip to the thread pool per commit instead of two. Without it, an fsync.
        if (DSYNC === 0) await handle.sync();
        this.durable.set(file, (this.durable.get(file) ?? 0) + buffer.length);
      }
    } catch (e) {
      const cause = e instanceof Error ? e : new Error('write failed');
      const error = new AuditWriteError(`the audit write failed: ${cause.message}`, true);
      for (const { item } of sealed) item.reject(error);
      for (const item of this.pending) item.reject(error);
      this.pending = [];
      this.flushing = false;
      this.fail(cause);
      return;
    }
    this.head = head;
    this.current = current;
    if (sealed.length > 0) this.checkpoint?.update(head);
    for (const { record, item } of sealed) item.resolve(record);
    // Whatever arrived during this flush goes in the next one.
    await this.flush();
  }

  private async handle(file: string): Promise<FileHandle> {
    let handle = this.files.get(file);
    if (handle === undefined) {
      const path = join(this.dir, file);
      let created = false;
      try {
        handle = await open(path, constants.O_WRONLY | constants.O_APPEND | DSYNC);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | DSYNC, 0o600);
        created = true;
      }
      this.files.set(file, handle);
      this.durable.set(file, (await handle.stat()).size);
      // A new month file must survive a crash too: sync the directory entry (one that already
      // existed has its entry durable since it was made; each hook process opens it anew).
      if (created) {
        const dir = await open(this.dir, 'r');
        try {
          await dir.sync();
        } finally {
          await dir.close();
        }
      }
    }
    return handle;
  }

  /** Waits for every pending append and the last checkpoint, then closes the files. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    // What appendWithNext queued with no append after it is written now.
    if (!this.flushing && this.pending.length > 0 && this.broken === undefined) {
      this.flushing = true;
      await this.flush();
    }
    while (this.flushing) await new Promise((r) => setImmediate(r));
    await this.checkpoint?.idle();
    for (const handle of this.files.values()) await handle.close();
    this.files.clear();
  }
}

/** `<home>/logs/audit` with its signed checkpoint in `<home>/data` (SPEC §2 layout, §7). */
export function openAuditLog(home: string, now?: () => Date): AuditAppender {
  let checkpoint: CheckpointStore;
  try {
    checkpoint = CheckpointStore.open(join(home, 'data'), now);
  } catch (e) {
    throw new AuditWriteError(`the audit log is unavailable: ${e instanceof Error ? e.message : 'no signing key'}`);
  }
  return AuditAppender.open(join(home, 'logs', 'audit'), { checkpoint });
}

export class AuditWriteError extends OracleError<'AUDIT_WRITE_FAILED'> {
  /** `retryable`: the log was unavailable (it recovers by itself); false: this record can never be written. */
  constructor(
    message: string,
    readonly retryable = false,
  ) {
    super('AUDIT_WRITE_FAILED', message);
  }
}

/**
 * Before writing, the log must still reach its checkpoint with the same record there. Appending
 * to a truncated or rewritten log and re-signing would launder the damage, so opening fails
 * instead (fail closed, SPEC §1): the operator runs `oracle audit verify` and decides.
 */
interface Anchor {
  readonly anchored: boolean;
  /** Records past the signed checkpoint, which this open will sign with its first flush. */
  readonly unsignedTail: { readonly from_seq: number; readonly to_seq: number } | undefined;
}
const ANCHORED: Anchor = { anchored: true, unsignedTail: undefined };

function checkAnchor(dir: string, files: readonly string[], head: ChainHead, store: CheckpointStore): Anchor {
  const state = store.read();
  const refuse = (why: string): never => {
    throw new AuditWriteError(`the audit log does not match its checkpoint \`${join(store.dir, CHECKPOINT_FILE)}\` (${why}); run \`oracle audit verify\` before ORACLE writes to it again`);
  };
  if (state.state === 'absent') {
    if (head.seq > 0) refuse('the log has records but there is no checkpoint');
    return { anchored: false, unsignedTail: undefined };
  }
  if (state.state === 'invalid') return refuse(state.reason);
  const { seq, hash } = state.checkpoint;
  if (seq > head.seq) refuse(`the log ends at seq ${head.seq}, the checkpoint names seq ${seq}`);
  if ((seq === 0 ? GENESIS.hash : hashAtSeq(dir, files, seq)) !== hash) refuse(`seq ${seq} is not the record the checkpoint signed`);
  return { anchored: true, unsignedTail: seq < head.seq ? { from_seq: seq + 1, to_seq: head.seq } : undefined };
}

/** The hash of the record with `seq`, read backwards from the end (the checkpoint is near the head). */
function hashAtSeq(dir: string, files: readonly string[], seq: number): string | undefined {
  for (const file of files.toReversed()) {
    for (const line of linesBackward(join(dir, file))) {
      let record: Partial<AuditRecord>;
      try {
        record = JSON.parse(line) as Partial<AuditRecord>;
      } catch {
        return undefined;
      }
      if (record.seq === seq) return record.hash;
      if (typeof record.seq !== 'number' || record.seq < seq) return undefined;
    }
  }
  return undefined;
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
