import { ATTEST_NONCE, attestInput } from '../../../shared/attest.js';
import { bytesEqual, fixedBytes, fromBase64Url, toBase64Url } from '../../../shared/pairing/bytes.js';
import { ecdsaVerify, sha256 } from '../../../shared/pairing/protocol.js';
import { ApiError, request } from './api.js';

export type PinCheck =
  | { readonly ok: true; readonly key: CryptoKey }
  | { readonly ok: false; readonly changed: true; readonly seen: string }
  | { readonly ok: false; readonly changed: false; readonly reason: string; readonly refused?: true };

/**
 * On every start (SPEC §9a): a fresh nonce, signed by the server's TLS key, checked against the
 * pinned k. `changed` means the server answered with another key: the phone refuses it. The route
 * wants the phone's credential (`headers`, its bearer), as every route but health does.
 */
export async function checkPin(k: string, headers: Record<string, string>): Promise<PinCheck> {
  const subtle = globalThis.crypto.subtle;
  const nonce = toBase64Url(globalThis.crypto.getRandomValues(new Uint8Array(18)));
  if (!ATTEST_NONCE.test(nonce)) return { ok: false, changed: false, reason: 'could not make a nonce' };
  let body: { spki?: unknown; sig?: unknown };
  try {
    body = (await request<{ spki?: unknown; sig?: unknown }>(`/api/v1/attest?nonce=${nonce}`, { headers })).body;
  } catch (e) {
    if (!(e instanceof ApiError)) return { ok: false, changed: false, reason: 'the key check failed' };
    return e.status === 401 ? refusedBy(k) : { ok: false, changed: false, reason: e.message };
  }
  const spki = typeof body.spki === 'string' ? fromBase64Url(body.spki) : undefined;
  const sig = fixedBytes(body.sig, 64);
  const pinned = fixedBytes(k, 32);
  if (spki === undefined || sig === undefined || pinned === undefined) return { ok: false, changed: false, reason: 'malformed key attestation' };
  const seen = await sha256(subtle, spki);
  if (!bytesEqual(seen, pinned)) return { ok: false, changed: true, seen: toBase64Url(seen) };
  const key = await subtle.importKey('spki', spki, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  if (!(await ecdsaVerify(subtle, key, sig, attestInput(nonce)))) return { ok: false, changed: true, seen: toBase64Url(seen) };
  return { ok: true, key };
}

/**
 * The gate refused this phone's credential: revoked, or another install answers at this address.
 * Health names its key without a credential; a key other than the pin is reason enough to refuse
 * (nothing is accepted on that unsigned word, only refused), and the same key means revoked.
 */
async function refusedBy(k: string): Promise<PinCheck> {
  const reason = 'the gate no longer accepts this phone';
  try {
    const health = (await request<{ spki_sha256?: unknown }>('/api/v1/health')).body;
    const seen = typeof health.spki_sha256 === 'string' ? toBase64Url(Uint8Array.from(atob(health.spki_sha256), (ch) => ch.charCodeAt(0))) : undefined;
    if (seen !== undefined && seen !== k) return { ok: false, changed: true, seen };
  } catch {
    // Health unreadable: the refusal itself stands.
  }
  return { ok: false, changed: false, reason, refused: true };
}
