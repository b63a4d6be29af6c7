import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const CHUNK = 64 * 1024;

/**
 * The complete lines of a file, last first, read in 64 KiB chunks from the end, so a caller that
 * stops early reads only that far. Split on bytes (a chunk may cut a UTF-8 character); what follows
 * the last newline is a line still being written (or torn by a crash) and is not yielded.
 */
export function* linesBackward(path: string): Generator<string> {
  const fd = openSync(path, 'r');
  try {
    let end = fstatSync(fd).size;
    // Bytes after the last newline seen so far (split on bytes: a chunk may cut a UTF-8 character).
    let carry = Buffer.alloc(0);
    let last = true;
    while (end > 0) {
      const start = Math.max(0, end - CHUNK);
      const chunk = Buffer.alloc(end - start);
      readSync(fd, chunk, 0, chunk.length, start);
      let data = Buffer.concat([chunk, carry]);
      if (last) {
        // After the file's last newline: empty, or a line still being written (not a record yet).
        const cut = data.lastIndexOf(0x0a);
        data = cut === -1 ? Buffer.alloc(0) : data.subarray(0, cut + 1);
        last = cut === -1;
      }
      let stop = data.length;
      for (let at = data.lastIndexOf(0x0a, stop - 2); at !== -1; at = data.lastIndexOf(0x0a, at - 1)) {
        const line = data.subarray(at + 1, stop).toString('utf8').replace(/\n$/u, '');
        if (line !== '') yield line;
        stop = at + 1;
        if (at === 0) break;
      }
      carry = Buffer.from(data.subarray(0, stop));
      end = start;
    }
    const line = carry.toString('utf8').replace(/\n$/u, '');
    if (line !== '') yield line;
  } finally {
    closeSync(fd);
  }
}
