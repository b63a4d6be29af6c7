import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { Pin } from '../core/decide/context.js';
import type { ProgramRule } from '../core/policy/types.js';

export interface PinEnvironment {
  /** The PATH as it is at start; it is never consulted again (SPEC §6). */
  readonly path: string;
  readonly platform: NodeJS.Platform;
  /** Windows PATHEXT. */
  readonly pathext?: string | undefined;
}

/**
 * Resolves each allowlisted program to one absolute, real path, once. Relative PATH entries
 * (including the empty entry, which means the current directory) are skipped: a `git` in a
 * project directory must never win.
 */
export function pinPrograms(programs: ReadonlyMap<string, ProgramRule>, env: PinEnvironment): Map<string, Pin> {
  const pins = new Map<string, Pin>();
  for (const [name, rule] of programs) pins.set(name, pinOne(name, rule.path, env));
  return pins;
}

export function pinOne(name: string, declared: string | undefined, env: PinEnvironment): Pin {
  if (declared !== undefined) {
    return executable(declared, env.platform) ? { ok: true, path: realpathSync(declared) } : { ok: false, reason: `\`${declared}\` is not an executable file` };
  }
  const exts = env.platform === 'win32' ? (env.pathext ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((e) => e !== '') : [''];
  for (const dir of env.path.split(env.platform === 'win32' ? ';' : delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      if (executable(candidate, env.platform)) return { ok: true, path: realpathSync(candidate) };
    }
  }
  return { ok: false, reason: `\`${name}\` is not on PATH` };
}

function executable(path: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (platform !== 'win32') accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
