import { randomFillSync } from 'node:crypto';

/**
 * Random hex from the CSPRNG, drawn from a pool filled 4 KiB at a time: one `randomBytes(12)`
 * per action cost more than the rest of an id's life (a trip into OpenSSL for 12 bytes), the
 * way `crypto.randomUUID` keeps its own cache. For identifiers, not keys (they live in a
 * process-wide buffer until drawn, and are zeroed there once drawn).
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

export function randomHex(bytes: number): string {
  if (bytes > POOL_BYTES) throw new RangeError(`at most ${String(POOL_BYTES)} bytes at a time`);
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  pool.fill(0, offset, offset + bytes);
  offset += bytes;
  return hex;
}
