import { SecretStoreError } from './errors.js';

/**
 * Secrets are referenced by name (SPEC §6). The grammar keeps names safe as JSON keys, keyring
 * accounts and file names alike, and leaves `_` and `.` prefixes free for the store's own entries
 * (`_probe`), which therefore can never collide with a user's secret.
 */
export const SECRET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/u;

/** A value past this size is not a credential; the cap keeps one bad call from bloating the store. */
export const MAX_SECRET_BYTES = 64 * 1024;

export function isSecretName(name: unknown): name is string {
  return typeof name === 'string' && SECRET_NAME.test(name);
}

export function assertSecretName(name: unknown): asserts name is string {
  // The offending name is not echoed: a caller who mixed up name and value would leak the value.
  if (!isSecretName(name)) throw new SecretStoreError('invalid_name', 'a secret name must match ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$');
}

export function assertSecretValue(value: unknown): asserts value is string {
  if (typeof value !== 'string' || value === '') throw new SecretStoreError('invalid_value', 'a secret value must be a non-empty string');
  if (new TextEncoder().encode(value).length > MAX_SECRET_BYTES) throw new SecretStoreError('invalid_value', `a secret value must be at most ${MAX_SECRET_BYTES} bytes`);
}
