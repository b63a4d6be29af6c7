import { toBase64Url as base64UrlUnpadded } from '../../../shared/pairing/bytes.js';

/**
 * RFC 4648 §4 base64 with padding, derived from the core's one encoder (pairing/bytes.ts, pure
 * and Buffer-free for the same reason: the core runs anywhere, SPEC §2).
 */
export function base64(bytes: Uint8Array): string {
  const url = base64UrlUnpadded(bytes);
  return url.replace(/-/gu, '+').replace(/_/gu, '/') + '='.repeat((4 - (url.length % 4)) % 4);
}

/** RFC 4648 §5: the URL- and file-name-safe alphabet (padding kept). */
export function toBase64Url(b64: string): string {
  return b64.replace(/\+/gu, '-').replace(/\//gu, '_');
}
