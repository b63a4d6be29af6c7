import { readSync } from 'node:fs';

const CHUNK = 64 * 1024;

/**
 * All of stdin, or undefined once it is longer than `max` bytes. Read from fd 0 directly: the hook
 * starts once per tool call, and `process.stdin` builds Node's stream machinery (and, for a pipe,
 * its sockets) only to hand over a few kilobytes. A non-blocking stdin (EAGAIN) is read on
 * through `process.stdin`, keeping what was already read.
 */
export async function readStdin(max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  const add = (bytes: Buffer): boolean => {
    size += bytes.length;
    if (size > max) return false;
    chunks.push(bytes);
    return true;
  };
  const buffer = Buffer.allocUnsafe(CHUNK);
  for (;;) {
    let read: number;
    try {
      read = readSync(0, buffer, 0, CHUNK, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EOF') break; // Windows: the end of a pipe
      if (code !== 'EAGAIN') throw e;
      for await (const chunk of process.stdin as AsyncIterable<Buffer>) if (!add(chunk)) return undefined;
      break;
    }
    if (read === 0) break;
    if (!add(Buffer.from(buffer.subarray(0, read)))) return undefined;
  }
  return Buffer.concat(chunks);
}
