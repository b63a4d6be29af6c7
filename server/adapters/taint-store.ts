import { closeSync, existsSync, fsyncSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.js';
import { HomeFileError } from './home-file-error.js';
import type { RuntimeState } from '../core/decide/context.js';
import { PROVENANCE_KINDS } from '../../shared/provenance.js';

/** A journal this long is folded into one line per session the next time it opens. */
const COMPACT_AT_OPEN = 500;
const FIX = 'move it away to start with every session clean (their taint is then forgotten)';

/**
 * `<home>/data/taint.journal`: which sessions read foreign or external content (SPEC §4), one JSON
 * line per change (`{"session":…,"state":…}`), appended with one fsync, so a restart forgets no
 * taint. Replaying a line twice is harmless (each sets the session's whole state); a torn last
 * line (a crash mid-append) is dropped. Long journals are folded at open.
 */
export class TaintFile {
  readonly path: string;
  private fd: number | undefined;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'taint.journal');
  }

  exists(): boolean {
    return existsSync(this.path);
  }

  load(): Record<string, RuntimeState> {
    if (!existsSync(this.path)) return {};
    const bytes = readFileSync(this.path);
    const end = bytes.lastIndexOf(0x0a) + 1;
    if (end < bytes.length) truncateSync(this.path, end);
    const lines = bytes.subarray(0, end).toString('utf8').split('\n').slice(0, -1);
    const sessions = new Map<string, RuntimeState>();
    lines.forEach((line, i) => {
      const change = parseLine(line);
      if (change === undefined) throw new HomeFileError(this.path, `line ${String(i + 1)} is not a taint record ORACLE writes`, FIX);
      sessions.set(change.session, change.state);
    });
    const state = Object.fromEntries(sessions);
    if (lines.length >= COMPACT_AT_OPEN && lines.length > sessions.size) this.rewrite(state);
    return state;
  }

  /** Durable when this returns. */
  save(session: string, state: RuntimeState): void {
    this.fd ??= openSync(this.path, 'a', 0o600);
    const bytes = Buffer.from(`${JSON.stringify({ session, state })}\n`, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written);
    fsyncSync(this.fd);
  }

  create(): void {
    this.fd ??= openSync(this.path, 'a', 0o600);
    fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private rewrite(state: Record<string, RuntimeState>): void {
    this.close();
    writeFileAtomic(this.path, Object.entries(state).map(([session, s]) => `${JSON.stringify({ session, state: s })}\n`).join(''));
  }
}

const KINDS = new Set<string>(PROVENANCE_KINDS);

function parseLine(line: string): { session: string; state: RuntimeState } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { session, state } = value as { session?: unknown; state?: unknown };
  if (typeof session !== 'string' || typeof state !== 'object' || state === null) return undefined;
  const { tainted, provenance } = state as { tainted?: unknown; provenance?: unknown };
  if (typeof tainted !== 'boolean' || !Array.isArray(provenance)) return undefined;
  const entries = provenance.every((p: unknown) => typeof p === 'object' && p !== null && KINDS.has(String((p as { kind?: unknown }).kind)) && typeof (p as { source?: unknown }).source === 'string');
  return entries ? { session, state: { tainted, provenance: provenance as RuntimeState['provenance'] } } : undefined;
}
