import type { OracleCode } from './outcome-codes.js';

/**
 * The base of every error ORACLE throws on purpose (STYLE: one error base, as jose has): a code
 * from the one vocabulary (outcome-codes.ts) and a message for a person. `instanceof OracleError`
 * tells a failure ORACLE understood from a bug; its code goes into results and HTTP answers as is.
 */
export class OracleError<C extends OracleCode = OracleCode> extends Error {
  readonly code: C;

  constructor(code: C, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
