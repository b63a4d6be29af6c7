import type { webcrypto } from 'node:crypto';
import type { Context, Env } from 'hono';
import { SIGNATURE_HEADERS, SIGNATURE_WINDOW_MS, signingInput } from '../../shared/signing.js';

/** What signature checks need about a device (the credential store implements it). */
export interface DeviceKeys {
  publicKey(deviceId: string): Readonly<Record<string, unknown>> | undefined;
  /** Accepts the counter only if it is strictly greater than the last one (no replays). */
  advanceCounter(deviceId: string, counter: number): boolean;
}

function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]+$/u.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, 'base64url'));
}

/**
 * A device's state-changing request must carry its signature (SPEC §9a): a stolen bearer token
 * without the non-extractable device key can read, but cannot approve, deny or HALT. Verified
 * with WebCrypto (ECDSA P-256, SHA-256) against the key registered at pairing; time within
 * ±120 s; the counter strictly increasing per device.
 */
export async function verifyDeviceSignature<E extends Env>(c: Context<E>, device: { id: string; body: string }, keys: DeviceKeys, now: number): Promise<string | undefined> {
  const deviceId = device.id;
  const body = device.body;
  const time = Number(c.req.header(SIGNATURE_HEADERS.time));
  const counter = Number(c.req.header(SIGNATURE_HEADERS.counter));
  const signature = fromBase64Url(c.req.header(SIGNATURE_HEADERS.signature) ?? '');
  if (!Number.isSafeInteger(time) || !Number.isSafeInteger(counter) || counter < 1 || signature === undefined) return 'a device signature is required';
  if (Math.abs(now - time) > SIGNATURE_WINDOW_MS) return 'the signature time is outside the allowed window';
  const jwk = keys.publicKey(deviceId);
  if (jwk === undefined) return 'no device key is registered';
  const subtle = globalThis.crypto.subtle;
  const bodyHash = Buffer.from(await subtle.digest('SHA-256', new TextEncoder().encode(body))).toString('hex');
  const input = new TextEncoder().encode(signingInput({ method: c.req.method, path: new URL(c.req.url).pathname, bodySha256Hex: bodyHash, time, counter }));
  let valid: boolean;
  try {
    const key = await subtle.importKey('jwk', jwk as webcrypto.JsonWebKey, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    valid = await subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, signature, input);
  } catch {
    valid = false;
  }
  if (!valid) return 'the device signature does not verify';
  // Only after the signature holds does the counter move, so junk cannot burn counters.
  if (!keys.advanceCounter(deviceId, counter)) return 'the request counter was already used';
  return undefined;
}
