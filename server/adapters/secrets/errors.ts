/**
 * Secret store failures (SPEC §6). Messages are lower case and may name a secret or a path, never
 * a value: no message is built from a value, a file's content or an underlying parser's text.
 */
export const SECRET_STORE_ERROR_CODES = [
  'invalid_name',
  'invalid_value',
  'insecure_permissions',
  'wrong_owner',
  'unsafe_path',
  'corrupt_store',
  'io_failed',
  'keyring_failed',
] as const;
export type SecretStoreErrorCode = (typeof SECRET_STORE_ERROR_CODES)[number];

export class SecretStoreError extends Error {
  override readonly name = 'SecretStoreError';
  readonly code: SecretStoreErrorCode;

  constructor(code: SecretStoreErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** The errno code of a Node error (`ENOENT`), never its message. */
export function errnoOf(e: unknown): string {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string') return e.code;
  return e instanceof Error ? e.name : 'unknown error';
}
