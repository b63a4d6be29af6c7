import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flavorForPlatform, type PathFlavor } from '../core/paths/flavor.js';

/** Facts about the machine the gate runs on, gathered in one place for the composition root. */
export interface HostFacts {
  readonly platform: NodeJS.Platform;
  readonly flavor: PathFlavor;
  readonly userHome: string;
  readonly cwd: string;
}

export function hostFacts(): HostFacts {
  return { platform: process.platform, flavor: flavorForPlatform(process.platform), userHome: homedir(), cwd: process.cwd() };
}

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

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A path as the core writes it: `/` separators, absolute. */
export function toCanonicalForm(path: string, platform: NodeJS.Platform): string {
  return platform === 'win32' ? resolve(path).replaceAll('\\', '/') : resolve(path);
}

/** The built `oracle` entry point, by absolute path (hooks never rely on PATH). */
export const ORACLE_BIN_PATH = join(packageRoot(), 'dist', 'server', 'cli', 'oracle.js');
