import { DENY_CODES } from './deny-codes.js';
import { HTTP_ERROR_CODES } from './http-errors.js';

/**
 * Every code ORACLE answers with, in one closed vocabulary (STYLE: one error base, one code set):
 * a decision's denial, an approval's refusal, an execution's failure, the egress broker's, the
 * gate's own, pairing's, the HTTPS API's. Results, HTTP answers and thrown errors (OracleError)
 * all carry one of these; a new code is a new member here or nothing compiles. Two subsystems name
 * their failures in lower case (the secret store, redaction): members too, as they are.
 */

/** Why an approval did not let an action run, or could not be answered (SPEC §7). */
export const APPROVAL_CODES = [
  /** A needs-approval action from a caller nobody can be asked for (`oracle run`, the headless hook). */
  'APPROVAL_REQUIRED',
  'APPROVAL_DENIED',
  'APPROVAL_EXPIRED',
  'APPROVAL_REPLAY',
  'APPROVAL_ARGS_CHANGED',
  'APPROVAL_NONCE',
  'APPROVAL_NOT_APPROVED',
  'APPROVAL_PHRASE',
  'APPROVAL_PROFILE',
  'APPROVAL_UNKNOWN',
  'APPROVAL_NOT_PENDING',
  'REMEMBER_REFUSED',
] as const;

/** Why an allowed action did not run to its end (SPEC §6). */
export const EXEC_ERROR_CODES = [
  'NOT_ALLOWED',
  'PATH_CHANGED',
  'EXECUTOR_UNAVAILABLE',
  'JOB_ROOT_BLOCKED',
  'SPAWN_FAILED',
  'TIMEOUT',
  'HALTED',
  /** The caller withdrew the action while it ran or waited; its job was killed. */
  'CANCELLED',
  /** Nothing is at the path (FS_NOT_A_FILE is for something of another kind there). */
  'FS_NOT_FOUND',
  'FS_NOT_A_FILE',
  'FS_TOO_LARGE',
  'FS_NOT_TEXT',
  'FS_IO',
  /** The destination of a move or the folder of a new directory is in the way (or missing). */
  'FS_EXISTS',
  'FS_NO_PARENT',
  /** An edit's file changed since the edit was computed (and shown to the person). */
  'FS_CHANGED',
  'UNDO_UNAVAILABLE',
  'UNDO_REFUSED',
  /** An undo of several paths stopped partway; the message names what is back, what is not, and where the copies are. */
  'UNDO_PARTIAL',
  'GIT_FAILED',
  'EGRESS_REFUSED',
  'SECRET_MISSING',
  'EXECUTION_FAILED',
  /** A program that ran and exited non-zero. */
  'EXIT_NONZERO',
  /** A fetch that got an HTTP error status. */
  'HTTP_STATUS',
] as const;

/** What the egress broker refused or met on the way out (SPEC §6). */
export const EGRESS_CODES = [
  'URL_INVALID',
  'ARG_SHAPE',
  'EGRESS_DENIED',
  'EGRESS_DNS',
  'EGRESS_PRIVATE_ADDRESS',
  'EGRESS_REDIRECT',
  'EGRESS_TIMEOUT',
  'EGRESS_NETWORK',
  'EGRESS_SECOND_LOOKUP',
  /** The caller withdrew the action while the fetch ran: the connection was closed. */
  'CANCELLED',
  /** A HALT landed while the fetch ran: the connection was closed. */
  'HALTED',
] as const;

/** The gate itself: its audit log, its home, its clients, its lifecycle. */
export const GATE_CODES = [
  'AUDIT_WRITE_FAILED',
  'AUDIT_CHECKPOINT_FAILED',
  'HOME_FILE_CORRUPT',
  'HOME_IN_USE',
  /** The gate stopped before anyone answered. */
  'GATE_STOPPED',
  /** A client found no gate to ask, or the gate it asked did not answer. */
  'GATE_UNREACHABLE',
  'GATE_REFUSED',
  /** The acceptance battery could not make its own temporary home. */
  'BATTERY_HOME_FAILED',
  /** Pairing a device failed on the phone's side (the server said why in its answer). */
  'PAIRING_FAILED',
  /** A policy reload was refused: the file has errors, the policy in force stays (issue 16). */
  'POLICY_REFUSED',
] as const;

/** ORACLE's own terminals (term.write, term.read; issue 16). */
export const TERM_CODES = [
  /** No terminal of that name is open on this gate. */
  'TERM_UNKNOWN',
  /** The terminal's program has ended: nothing can be typed into it. */
  'TERM_EXITED',
  'TERM_EXISTS',
  /** As many terminals are open as the gate keeps. */
  'TERM_LIMIT',
  /** The terminal could not start (its folder is not in a scope, its program is not there, no PTY). */
  'TERM_REFUSED',
] as const;

/** What a screen (the phone, the desktop) meets talking to the gate. */
export const CLIENT_CODES = ['OFFLINE', 'BAD_REPLY', 'KEY_MISMATCH'] as const;

/** The server's answers while a device pairs (SPEC §9). */
export const PAIRING_CODES = [
  'PAIRING_WAITING',
  'PAIRING_USED',
  'PAIRING_UNKNOWN',
  'PAIRING_PROOF',
  'PAIRING_EXPIRED',
  'PAIRING_BURNED',
  'PAIRING_REJECTED',
  'PAIRING_RATE_LIMITED',
  'PAIRING_FULL',
  'PAIRING_OFFERS',
  'PAIRING_INPUT',
] as const;

/** The secret store's failures (SPEC §6). */
export const SECRET_STORE_CODES = ['invalid_name', 'invalid_value', 'insecure_permissions', 'wrong_owner', 'unsafe_path', 'corrupt_store', 'io_failed', 'keyring_failed'] as const;

/** Redaction's failures (SPEC §10): what it could not redact is never passed on. */
export const REDACTION_CODES = ['invalid_input', 'unsupported_value', 'circular_value', 'too_deep', 'residual_secret', 'internal_error'] as const;

export type ApprovalCode = (typeof APPROVAL_CODES)[number];
export type ExecErrorCode = (typeof EXEC_ERROR_CODES)[number];
export type EgressCode = (typeof EGRESS_CODES)[number];
export type GateCode = (typeof GATE_CODES)[number];

export const ORACLE_CODES: readonly OracleCode[] = [
  ...new Set([...DENY_CODES, ...APPROVAL_CODES, ...EXEC_ERROR_CODES, ...EGRESS_CODES, ...GATE_CODES, ...TERM_CODES, ...CLIENT_CODES, ...PAIRING_CODES, ...SECRET_STORE_CODES, ...REDACTION_CODES, ...HTTP_ERROR_CODES]),
];

export type OracleCode =
  | (typeof DENY_CODES)[number]
  | ApprovalCode
  | ExecErrorCode
  | EgressCode
  | GateCode
  | (typeof TERM_CODES)[number]
  | (typeof CLIENT_CODES)[number]
  | (typeof PAIRING_CODES)[number]
  | (typeof SECRET_STORE_CODES)[number]
  | (typeof REDACTION_CODES)[number]
  | (typeof HTTP_ERROR_CODES)[number];

const KNOWN = new Set<string>(ORACLE_CODES);

export function isOracleCode(code: string): code is OracleCode {
  return KNOWN.has(code);
}
