import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
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

export { ORACLE_BIN_PATH, packageRoot, resolveHome } from './package-root.js';

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A path as the core writes it: `/` separators, absolute. */
export function toCanonicalForm(path: string, platform: NodeJS.Platform): string {
  return platform === 'win32' ? resolve(path).replaceAll('\\', '/') : resolve(path);
}

