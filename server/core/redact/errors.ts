import { OracleError } from '../../../shared/oracle-error.js';
import { REDACTION_CODES } from '../../../shared/outcome-codes.js';
/**
 * SPEC §6: "a redaction failure is loud". The sink throws instead of returning a result type: a
 * failed redaction must have no return value at all, so no caller can fall back to the original
 * text by accident (`result.text ?? raw`). Every failure inside the sink surfaces as this one class
 * with a stable `code`, so a log or preview sink catches one thing and writes a placeholder.
 */
export const REDACTION_ERROR_CODES = REDACTION_CODES;
export type RedactionErrorCode = (typeof REDACTION_CODES)[number];

export class RedactionError extends OracleError<RedactionErrorCode> {
  override readonly name = 'RedactionError';
  /**
   * The constructor name of an unexpected internal error, never its message: a message built
   * from the input could carry the very secret being redacted.
   */
  readonly causeName: string | undefined;

  constructor(code: RedactionErrorCode, message: string, causeName?: string) {
    super(code, message);
    this.causeName = causeName;
  }
}

export function isRedactionError(e: unknown): e is RedactionError {
  return e instanceof RedactionError;
}
