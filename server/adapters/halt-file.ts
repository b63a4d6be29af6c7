import { closeSync, existsSync, fsyncSync, openSync, readFileSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { writeFileAtomic } from './atomic-file.js';
import { dirname, join } from 'node:path';
import type { HaltRecord } from '../core/halt.js';

/**
 * `<home>/data/halt.json`: present means halted. Written atomically and fsynced, so a crash never
 * leaves a half-written HALT that could read as "not halted". Any process with the same home sees
 * it, which is how `oracle halt` reaches a running gate.
 */
export class HaltFile {
  readonly path: string;
  constructor(dataDir: string) {
    this.path = join(dataDir, 'halt.json');
  }

  read(): HaltRecord | undefined {
    if (!existsSync(this.path)) return undefined;
    try {
      return JSON.parse(readFileSync(this.path, 'utf8')) as HaltRecord;
    } catch {
      // Unreadable is still halted: fail closed with what we know.
      return { reason: 'the halt file is unreadable', at: new Date(0).toISOString(), by: 'unknown', snapshot: { running_processes: 0, in_flight: [] } };
    }
  }

  write(record: HaltRecord): void {
    writeFileAtomic(this.path, JSON.stringify(record));
  }


  remove(): void {
    rmSync(this.path, { force: true });
    syncDir(dirname(this.path));
  }

  /** Calls back when the file appears, changes or goes; a poll backs up fs.watch. */
  watch(onChange: () => void): () => void {
    let watcher: FSWatcher | undefined;
    try {
      watcher = watch(dirname(this.path), (_event, name) => {
        if (name === null || name === 'halt.json') onChange();
      });
    } catch {
      watcher = undefined;
    }
    const poll = setInterval(onChange, 500);
    poll.unref();
    return () => {
      watcher?.close();
      clearInterval(poll);
    };
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
