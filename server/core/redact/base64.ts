/** RFC 4648 §4 base64 without Buffer or btoa: the core is pure (SPEC §2) and runs anywhere. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function base64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] ?? 0;
    const b = bytes[i + 1] ?? 0;
    const c = bytes[i + 2] ?? 0;
    const n = (a << 16) | (b << 8) | c;
    const left = bytes.length - i;
    out += ALPHABET.charAt((n >> 18) & 63) + ALPHABET.charAt((n >> 12) & 63);
    out += left > 1 ? ALPHABET.charAt((n >> 6) & 63) : '=';
    out += left > 2 ? ALPHABET.charAt(n & 63) : '=';
  }
  return out;
}

/** RFC 4648 §5: the URL- and file-name-safe alphabet. */
export function toBase64Url(b64: string): string {
  return b64.replace(/\+/gu, '-').replace(/\//gu, '_');
}
