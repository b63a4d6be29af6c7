import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { writeFileAtomic } from './atomic-file.js';

export type ReadResult = { readonly ok: true; readonly bytes: Buffer } | { readonly ok: false; readonly reason: string };

/** Reads a whole file for the operator's own inputs (the policy); never for an agent. */
export function readOperatorFile(path: string): ReadResult {
  try {
    return { ok: true, bytes: readFileSync(path) };
  } catch (e) {
    return { ok: false, reason: (e as NodeJS.ErrnoException).code ?? 'unreadable' };
  }
}

export function fileExists(path: string): boolean {
  return existsSync(path);
}

/** A directory only this user may enter (`<home>/data`, which holds jobs, undo and secrets). */
export function ensurePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
}

/** A small private file (0600), replaced atomically. */
export function writePrivateFile(path: string, text: string): void {
  writeFileAtomic(path, text);
}

export function removeFile(path: string): void {
  rmSync(path, { force: true });
}

/** A directory (and its parents) with the default permissions. */
export function ensureDir(path: string): void {
  mkdirSync(path, { recursive: true });
}
