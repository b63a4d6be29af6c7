import { mkdtempSync, rmSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditAppender, sha256Text } from '../server/adapters/audit/appender.js';
import { GENESIS, sealRecord, type AuditBody, type ChainHead } from '../server/core/audit/record.js';
import { percentiles, type Figure } from './stats.js';

/**
 * Audit appends per second (SPEC §14): ORACLE's group commit (one write and one fsync per flush)
 * against the reference, one write and one fsync per record, each with 1 and 16 concurrent
 * writers, in the same run on the same disk. Both keep the same hash chain, so only durability
 * batching differs.
 */
const RECORDS = 2_000;

export async function auditBench(): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const writers of [1, 16]) {
    figures.push(await inTempDir((dir) => throughput(`audit: group commit, ${String(writers)} writer(s)`, writers, AuditAppender.open(dir))));
    figures.push(await inTempDir(async (dir) => throughput(`audit: reference, fsync per record, ${String(writers)} writer(s)`, writers, await FsyncPerRecord.open(join(dir, 'ref.jsonl')))));
  }
  return figures;
}

interface Log {
  append(body: AuditBody): Promise<unknown>;
  close(): Promise<void>;
}

/** `writers` loops appending RECORDS in all; each append's latency is its own sample. */
async function throughput(name: string, writers: number, log: Log): Promise<Figure> {
  const samples: number[] = [];
  const each = Math.ceil(RECORDS / writers);
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < each; i++) {
        const t = process.hrtime.bigint();
        await log.append(body(w, i));
        samples.push(Number(process.hrtime.bigint() - t) / 1000);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await log.close();
  return { name, runs: samples.length, ...percentiles(samples), per_second: Math.round(samples.length / seconds) };
}

const body = (writer: number, i: number): AuditBody => ({
  kind: 'decision',
  ts: new Date().toISOString(),
  actor: `bench-${String(writer)}`,
  action_id: `ac_${String(writer)}_${String(i)}`,
  tool: 'fs.read',
  tier: 'T0',
  decision: 'allow',
  code: null,
  rule: 'scopes[0]',
  reasons: ['read inside a scope'],
});

/** The reference: the same chain, each record written and fsynced on its own, in order. */
class FsyncPerRecord implements Log {
  private head: ChainHead = GENESIS;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly file: FileHandle) {}

  static async open(path: string): Promise<FsyncPerRecord> {
    return new FsyncPerRecord(await open(path, 'a', 0o600));
  }

  append(record: AuditBody): Promise<unknown> {
    const done = this.queue.then(async () => {
      const sealed = sealRecord(record, this.head, sha256Text);
      await this.file.write(`${JSON.stringify(sealed)}\n`);
      await this.file.sync();
      this.head = { seq: sealed.seq, hash: sealed.hash };
    });
    this.queue = done;
    return done;
  }

  close(): Promise<void> {
    return this.file.close();
  }
}

async function inTempDir(run: (dir: string) => Promise<Figure>): Promise<Figure> {
  const dir = mkdtempSync(join(tmpdir(), 'oracle-bench-audit-'));
  try {
    return await run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
