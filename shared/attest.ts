/**
 * Application-layer pinning (SPEC §9a): on every start the PWA asks the server to sign a fresh
 * nonce with its TLS key and checks the key against the pin it stored at pairing. These are the
 * bytes signed, shared so both sides build them the same way.
 */
export function attestInput(nonce: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`oracle-attest-v1\n${nonce}`);
}

export const ATTEST_NONCE = /^[A-Za-z0-9_-]{22,86}$/u;
