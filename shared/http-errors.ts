/**
 * Wire error codes of the HTTPS API and their status, as a total map: a new code without a
 * status does not compile (STYLE 2).
 */
export const HTTP_ERROR_CODES = ['UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'INPUT_INVALID', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED', 'INTERNAL'] as const;
export type HttpErrorCode = (typeof HTTP_ERROR_CODES)[number];

export const HTTP_STATUS: Readonly<Record<HttpErrorCode, 400 | 401 | 403 | 404 | 413 | 429 | 500>> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  INPUT_INVALID: 400,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL: 500,
};

export interface HttpError {
  readonly error: { readonly code: HttpErrorCode; readonly message: string };
}
