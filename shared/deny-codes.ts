/**
 * The fixed set of reasons a decision can deny (SPEC §4). No stringly-typed denials: a new reason
 * is a new member here, and `DENY_CODE_HELP` must describe it or this file does not compile.
 */
export const DENY_CODES = [
  'INPUT_INVALID',
  'TOOL_UNKNOWN',
  'POLICY_READ_ONLY',
  'HALTED',
  'PRINCIPAL_UNKNOWN',
  'CAPABILITY_DENIED',
  'PATH_NUL',
  'PATH_CONTROL_CHAR',
  'PATH_WILDCARD',
  'PATH_UNC',
  'PATH_DEVICE',
  'PATH_ADS',
  'PATH_EXPANSION',
  'PATH_SHORT_NAME',
  'PATH_RESERVED_NAME',
  'PATH_TRAILING_DOT_SPACE',
  'PATH_CONFUSABLE',
  'PATH_INVALID',
  'PATH_UNRESOLVABLE',
  'PATH_OUTSIDE_SCOPE',
  'PATH_EXCLUDED',
  'PATH_DENY_ALWAYS',
  'SCOPE_READ_ONLY',
  'SCOPE_ROOT',
  'PROGRAM_UNKNOWN',
  'PROGRAM_UNPINNED',
  'PROGRAM_DENIED',
  'PROGRAM_ARGS_REFUSED',
  'ARG_SHAPE',
  /** A secret-looking part holds more than a secret's characters: the card would hide what runs. */
  'SECRET_SHAPE',
  'GIT_FORCE_PUSH',
  'GIT_REMOTE',
  'EGRESS_DENIED',
  'URL_INVALID',
  'TERM_MULTILINE',
  'TERM_UNKNOWN',
  'TERM_EXITED',
  'TIER_T4',
  /** An fs.replace whose edits do not apply to the file as it is (no match, ambiguous, not text). */
  'EDIT_NOT_APPLIED',
  'EVALUATION_ERROR',
] as const;

export type DenyCode = (typeof DENY_CODES)[number];

export const DENY_CODE_HELP: Readonly<Record<DenyCode, string>> = {
  INPUT_INVALID: 'the action is not a well-formed request for a known tool',
  TOOL_UNKNOWN: 'the tool is not in the registry',
  POLICY_READ_ONLY: 'the policy failed to load, so only reads inside scopes run',
  HALTED: 'the gate is halted; nothing runs until a person resumes it',
  PRINCIPAL_UNKNOWN: 'the agent is not declared in the policy',
  CAPABILITY_DENIED: 'the effective capabilities do not cover what the tool needs',
  PATH_NUL: 'the path contains a NUL byte',
  PATH_CONTROL_CHAR: 'the path contains a control character',
  PATH_WILDCARD: 'the path contains a wildcard the tool did not declare',
  PATH_UNC: 'UNC paths are refused',
  PATH_DEVICE: 'device and namespace paths are refused',
  PATH_ADS: 'alternate data streams are refused',
  PATH_EXPANSION: 'paths are never expanded: `%`, `$` and a leading `~` are refused',
  PATH_SHORT_NAME: 'a DOS 8.3 short name could not be expanded',
  PATH_RESERVED_NAME: 'the path names a reserved Windows device',
  PATH_TRAILING_DOT_SPACE: 'a path segment ends in a dot or a space',
  PATH_CONFUSABLE: 'the path contains a look-alike separator or an invisible character',
  PATH_INVALID: 'the path is malformed for this platform',
  PATH_UNRESOLVABLE: 'the path could not be resolved to a real location',
  PATH_OUTSIDE_SCOPE: 'the path is not under any scope root',
  PATH_EXCLUDED: 'the path matches an exclude of its scope',
  PATH_DENY_ALWAYS: 'the path matches deny_always',
  SCOPE_READ_ONLY: 'the scope root is read-only',
  SCOPE_ROOT: 'a scope root itself cannot be deleted or moved away',
  PROGRAM_UNKNOWN: 'the program is not in the allowlist',
  PROGRAM_UNPINNED: 'the program could not be pinned to an absolute path at start',
  PROGRAM_DENIED: 'the arguments match the program deny list',
  PROGRAM_ARGS_REFUSED: 'no allow or confirm rule of the program covers these arguments',
  ARG_SHAPE: 'an argument failed its shape check',
  SECRET_SHAPE: "a part of the action that looks like a secret holds more than a secret's characters, and a card shows a secret only as [REDACTED], so it would hide what runs",
  GIT_FORCE_PUSH: 'force-pushing is never allowed',
  GIT_REMOTE: 'the remote could not be resolved to one network URL the gate can judge',
  EGRESS_DENIED: 'the host is not in the egress allowlist',
  URL_INVALID: 'the URL is malformed or not http(s)',
  TERM_MULTILINE: 'term.write takes exactly one line',
  TERM_UNKNOWN: 'no terminal of that name runs on this gate',
  TERM_EXITED: 'the program in that terminal has ended',
  TIER_T4: 'the action is T4 and is never executed',
  EDIT_NOT_APPLIED: 'the edit does not apply to the file as it is',
  EVALUATION_ERROR: 'the evaluation failed, so the gate denied',
};

const DENY_CODE_SET: ReadonlySet<string> = new Set(DENY_CODES);

export function isDenyCode(value: unknown): value is DenyCode {
  return typeof value === 'string' && DENY_CODE_SET.has(value);
}
