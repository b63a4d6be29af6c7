import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { writeFileAtomic } from './atomic-file.js';

/**
 * A private append-only file of JSON lines, one change per line (the approvals journal, the taint
 * journal): a change costs one write and one fsync however large the state it changes. A crash
 * mid-append leaves a torn last line; reading cuts it off, so the next append starts a line of
 * its own. What a line means is the caller's.
 */
export class JsonlJournal {
  private fd: number | undefined;

  constructor(readonly path: string) {}

  exists(): boolean {
    return existsSync(this.path);
  }

  /** Its complete lines (none when there is no file), the torn tail of a crash cut off first. */
  lines(): string[] {
    if (!existsSync(this.path)) return [];
    const bytes = readFileSync(this.path);
    // Counted in bytes: a torn multi-byte character does not decode back to its own length.
    const end = bytes.lastIndexOf(0x0a) + 1;
    if (end < bytes.length) truncateSync(this.path, end);
    return bytes.subarray(0, end).toString('utf8').split('\n').slice(0, -1);
  }

  /** Appends one line per value with one write and one fsync; durable when this returns. */
  append(values: readonly unknown[]): void {
    if (values.length === 0) return;
    const bytes = Buffer.from(values.map((v) => `${JSON.stringify(v)}\n`).join(''), 'utf8');
    const fd = this.open();
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
  }

  /** Makes the file if it is missing (empty), durably. */
  create(): void {
    fsyncSync(this.open());
  }

  /** Empties it, durably. */
  clear(): void {
    const fd = this.open();
    ftruncateSync(fd, 0);
    fsyncSync(fd);
  }

  /** Replaces it whole with one line per value (atomically: the old journal or the new one). */
  replace(values: readonly unknown[]): void {
    this.close();
    writeFileAtomic(this.path, values.map((v) => `${JSON.stringify(v)}\n`).join(''));
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): number {
    this.fd ??= openSync(this.path, 'a', 0o600);
    return this.fd;
  }
}

/** A journal line read as a JSON object (undefined for anything else, a torn or foreign line). */
export function jsonObjectLine(line: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
