import type { Transport } from '../../../shared/pairing/phone.js';

/** The pairing protocol's transport: JSON POSTs to this origin, every answer returned (never thrown). */
export const originTransport: Transport = {
  async post(path, body) {
    try {
      const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), cache: 'no-store' });
      const text = await res.text();
      let parsed: unknown = undefined;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed };
    } catch {
      return { status: 0, body: { error: { code: 'OFFLINE', message: 'the gate cannot be reached' } } };
    }
  },
};

/** The words a refused pairing step shows: the server's message when it gave one. */
export function pairingProblem(e: unknown): string {
  if (typeof e === 'object' && e !== null && 'body' in e) {
    const body = e.body;
    const message = typeof body === 'object' && body !== null && 'error' in body ? (body as { error: { message?: unknown } }).error.message : undefined;
    if (typeof message === 'string') return message;
  }
  return e instanceof Error ? e.message : 'pairing failed';
}
