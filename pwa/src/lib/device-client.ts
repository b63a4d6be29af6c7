import { SIGNATURE_HEADERS, signingInput } from '../../../shared/signing.js';
import { toHex } from '../../../shared/pairing/bytes.js';
import { toBase64Url } from '../../../shared/pairing/bytes.js';
import { request, type Reply } from './api.js';
import { saveDevice, type StoredDevice } from './device-store.js';

/**
 * Requests as this phone: the bearer on every call, and on state-changing ones a signature with
 * the device key over method, path, body hash, time and a counter (SPEC §9a). The counter is
 * saved before the request leaves, so a crash never reuses one.
 */
export class DeviceClient {
  constructor(readonly device: StoredDevice) {}

  get bearer(): Record<string, string> {
    return { authorization: `Bearer ${this.device.token}` };
  }

  get<T>(path: string): Promise<Reply<T>> {
    return request<T>(path, { headers: this.bearer });
  }

  async post<T>(path: string, body: unknown): Promise<Reply<T>> {
    const text = JSON.stringify(body);
    const subtle = globalThis.crypto.subtle;
    const time = Date.now();
    // Strictly increasing even if storage was rolled back: never below the clock in ms.
    const counter = Math.max(this.device.counter + 1, time);
    this.device.counter = counter;
    await saveDevice(this.device);
    const hash = toHex(new Uint8Array(await subtle.digest('SHA-256', new TextEncoder().encode(text))));
    const input = new TextEncoder().encode(signingInput({ method: 'POST', path, bodySha256Hex: hash, time, counter }));
    const sig = new Uint8Array(await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, this.device.key, input));
    return request<T>(path, {
      method: 'POST',
      body: text,
      headers: {
        ...this.bearer,
        'content-type': 'application/json',
        [SIGNATURE_HEADERS.time]: String(time),
        [SIGNATURE_HEADERS.counter]: String(counter),
        [SIGNATURE_HEADERS.signature]: toBase64Url(sig),
      },
    });
  }
}
