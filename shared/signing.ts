/**
 * What a device signs on a state-changing request (SPEC §9a): method, path, SHA-256 of the body,
 * time and a counter, one per line. Shared so the PWA and the server build the same bytes.
 */
export const SIGNATURE_HEADERS = { time: 'x-oracle-time', counter: 'x-oracle-counter', signature: 'x-oracle-signature' } as const;

export interface SignedRequest {
  readonly method: string;
  readonly path: string;
  readonly bodySha256Hex: string;
  readonly time: number;
  readonly counter: number;
}

export function signingInput(r: SignedRequest): string {
  return `${r.method.toUpperCase()}\n${r.path}\n${r.bodySha256Hex}\n${String(r.time)}\n${String(r.counter)}`;
}

/** A signature older or newer than this is refused. */
export const SIGNATURE_WINDOW_MS = 120_000;
