import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where ORACLE is installed and which home it uses. Kept apart from host.ts (which loads crypto)
 * because the hook's thin client, started on every tool call, needs only this.
 */

/** ORACLE's home (SPEC §2): `--home DIR`, else `ORACLE_HOME`, else the project root. */
export function resolveHome(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return resolve(flag ?? env['ORACLE_HOME'] ?? packageRoot());
}

/** The repository (or installed package) root: two levels above server/adapters in src and dist. */
export function packageRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const up = here.includes(join('dist', 'server')) ? '../../..' : '../..';
  return resolve(here, up);
}

/** The built `oracle` entry point, by absolute path (hooks never rely on PATH). */
export const ORACLE_BIN_PATH = join(packageRoot(), 'dist', 'server', 'cli', 'oracle.js');
