import type { DenyCode } from '../../../shared/deny-codes.js';

/** A path step either succeeds or says which deny code applies, why, and which rule fired. */
export type PathResult<T> = { readonly ok: true; readonly value: T } | PathFailure;

export interface PathFailure {
  readonly ok: false;
  readonly code: DenyCode;
  readonly reason: string;
  /** The policy rule that fired, e.g. `deny_always[2]`; canonicalisation steps report `paths`. */
  readonly rule: string;
}

export function pathOk<T>(value: T): PathResult<T> {
  return { ok: true, value };
}

export function pathFail(code: DenyCode, reason: string, rule = 'paths'): PathFailure {
  return { ok: false, code, reason, rule };
}
