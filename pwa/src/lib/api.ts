import { OracleError } from '../../../shared/oracle-error.js';
import { isOracleCode, type OracleCode } from '../../../shared/outcome-codes.js';
/**
 * JSON over fetch to this origin, with the server's error shape `{error: {code, message}}` turned
 * into an ApiError the screens show as is (a stable code and words a person can act on).
 */
export class ApiError extends OracleError {
  constructor(
    readonly status: number,
    code: OracleCode,
    message: string,
  ) {
    super(code, message);
  }
}

const TIMEOUT_MS = 15_000;

export interface Reply<T> {
  readonly status: number;
  readonly body: T;
}

function errorOf(status: number, body: unknown): ApiError {
  const e = typeof body === 'object' && body !== null && 'error' in body ? (body as { error: { code?: unknown; message?: unknown } }).error : undefined;
  // A code outside the vocabulary would be a server this screen does not know: shown as a bad reply, its words kept.
  const code = typeof e?.code !== 'string' ? 'HTTP_STATUS' : isOracleCode(e.code) ? e.code : 'BAD_REPLY';
  return new ApiError(status, code, typeof e?.message === 'string' ? e.message : `the server answered ${String(status)}`);
}

/** Sends one request; a network failure becomes OFFLINE, a non-2xx answer an ApiError. */
export async function request<T>(path: string, init: RequestInit = {}): Promise<Reply<T>> {
  let res: Response;
  try {
    // Bounded: a stuck request must never hold a screen (or its HALT) hostage.
    res = await fetch(path, { credentials: 'same-origin', cache: 'no-store', signal: AbortSignal.timeout(TIMEOUT_MS), ...init });
  } catch (e) {
    if (e instanceof DOMException && e.name === 'TimeoutError') throw new ApiError(0, 'TIMEOUT', 'the gate did not answer within 15 s');
    throw new ApiError(0, 'OFFLINE', 'the gate cannot be reached; check that it runs and that this device is on its network');
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new ApiError(res.status, 'BAD_REPLY', 'the server answered something that is not JSON');
  }
  if (!res.ok) throw errorOf(res.status, body);
  return { status: res.status, body: body as T };
}

export function json(method: string, body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } };
}
