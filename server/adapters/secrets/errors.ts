import { OracleError } from '../../../shared/oracle-error.js';
import { SECRET_STORE_CODES } from '../../../shared/outcome-codes.js';
/**
 * Secret store failures (SPEC §6). Messages are lower case and may name a secret or a path, never
 * a value: no message is built from a value, a file's content or an underlying parser's text.
 */
export const SECRET_STORE_ERROR_CODES = SECRET_STORE_CODES;
export type SecretStoreErrorCode = (typeof SECRET_STORE_CODES)[number];

export class SecretStoreError extends OracleError<SecretStoreErrorCode> {
  override readonly name = 'SecretStoreError';
}

/** The errno code of a Node error (`ENOENT`), never its message. */
export function errnoOf(e: unknown): string {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string') return e.code;
  return e instanceof Error ? e.name : 'unknown error';
}
