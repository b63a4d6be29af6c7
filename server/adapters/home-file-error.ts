import { OracleError } from '../../shared/oracle-error.js';
/**
 * A file of ORACLE's home that is there but cannot be used (corrupt, truncated, wrong shape).
 * Start-up stops with one line that names the file and what to do (issue 14): never an internal
 * error, never a half-started gate holding the home.
 */
export class HomeFileError extends OracleError<'HOME_FILE_CORRUPT'> {
  constructor(
    readonly file: string,
    detail: string,
    fix: string,
  ) {
    super('HOME_FILE_CORRUPT', `\`${file}\` cannot be used (${detail}); ${fix}`);
  }
}

/** Reads and checks a home file's JSON; anything wrong with it is a HomeFileError. */
export function parseHomeJson<T>(file: string, text: string, check: (value: unknown) => value is T, fix: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new HomeFileError(file, e instanceof Error ? `not JSON: ${e.message}` : 'not JSON', fix);
  }
  if (!check(value)) throw new HomeFileError(file, 'not the shape ORACLE writes', fix);
  return value;
}
