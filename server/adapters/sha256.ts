import * as crypto from 'node:crypto';

/**
 * SHA-256 of a string (as UTF-8) or bytes, in one call: Node's one-shot `crypto.hash` (20.12+)
 * where it exists, about half the cost of a Hash object per call on the action path (an action's
 * arguments, its three audit records, the caller's token); a Hash object elsewhere.
 */
type OneShot = (algorithm: 'sha256', data: string | Uint8Array, encoding: 'hex' | 'buffer') => string | Buffer;
const oneShot = (crypto as unknown as { hash?: OneShot }).hash;

export function sha256Hex(data: string | Uint8Array): string {
  if (oneShot !== undefined) return oneShot('sha256', data, 'hex') as string;
  return crypto.createHash('sha256').update(data).digest('hex');
}

export function sha256Buffer(data: string | Uint8Array): Buffer {
  if (oneShot !== undefined) return oneShot('sha256', data, 'buffer') as Buffer;
  return crypto.createHash('sha256').update(data).digest();
}
