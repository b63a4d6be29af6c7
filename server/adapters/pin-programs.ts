import { accessSync, constants, lstatSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Pin } from '../core/decide/context.js';
import { isPackageManagerBin } from '../core/paths/search-path.js';
import type { ProgramRule } from '../core/policy/types.js';

export interface PinEnvironment {
  /** The PATH as it is at start; it is never consulted again (SPEC §6). */
  readonly path: string;
  readonly platform: NodeJS.Platform;
  /** Windows PATHEXT. */
  readonly pathext?: string | undefined;
  /** The gate's own user, who may own what it runs besides root; this process's uid when absent. */
  readonly uid?: number | undefined;
}

/**
 * Resolves each allowlisted program to one absolute, real path, once. Relative PATH entries
 * (including the empty entry, which means the current directory) are skipped: a `git` in a
 * project directory must never win. So are a package manager's folders (`node_modules/.bin`,
 * npm's `node-gyp-bin`) and, off Windows, any file that someone other than root or the gate's
 * user could change or replace.
 */
export function pinPrograms(programs: ReadonlyMap<string, ProgramRule>, env: PinEnvironment): Map<string, Pin> {
  const pins = new Map<string, Pin>();
  for (const [name, rule] of programs) pins.set(name, pinOne(name, rule.path, env));
  return pins;
}

export function pinOne(name: string, declared: string | undefined, env: PinEnvironment): Pin {
  if (declared !== undefined) {
    if (!executable(declared, env.platform)) return { ok: false, reason: `\`${declared}\` is not an executable file`, skipped: [`\`${declared}\` (not an executable file)`] };
    // A declared path gets the same check as a PATH candidate: the policy names the file, not who may replace it.
    const safe = safeRealPath(declared, env);
    return safe.ok ? { ok: true, path: safe.path } : { ok: false, reason: `\`${declared}\` may not be pinned: ${safe.reason}`, skipped: [`\`${declared}\` (${safe.reason})`] };
  }
  const exts = env.platform === 'win32' ? (env.pathext ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((e) => e !== '') : [''];
  const skipped: string[] = [];
  for (const dir of env.path.split(env.platform === 'win32' ? ';' : delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      if (!executable(candidate, env.platform)) continue;
      const safe = isPackageManagerBin(dir) ? { ok: false as const, reason: `\`${dir}\` is a package manager's folder` } : safeRealPath(candidate, env);
      if (safe.ok) return { ok: true, path: safe.path, ...(skipped.length === 0 ? {} : { skipped }) };
      skipped.push(`\`${candidate}\` (${safe.reason})`);
    }
  }
  if (skipped.length === 0) return { ok: false, reason: `\`${name}\` is not on PATH`, absent: true };
  return { ok: false, reason: `\`${name}\` is on PATH only where it may not be pinned: ${skipped.join('; ')}`, skipped };
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

type Checked = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string };

/** Links followed before a path is refused, as the kernel's ELOOP limit. */
const MAX_LINKS = 40;

/**
 * The real path of `path` when nobody but root and the gate's user can change what it names: the
 * file, every folder above it and, for a link, the folder the link sits in and all it leads
 * through (the safe-path rule of OpenSSH's `safe_path` and sudo). Windows keeps its ACLs out of
 * this check and pins the real path as before.
 */
function safeRealPath(path: string, env: PinEnvironment): Checked {
  if (env.platform === 'win32') return { ok: true, path: realpathSync(path) };
  const uid = env.uid ?? process.getuid?.() ?? 0;
  try {
    return followSafely(path, uid, 0);
  } catch (e) {
    // A file that vanished or cannot be read between the two checks is not pinned: deny when in doubt.
    return { ok: false, reason: `\`${path}\` cannot be checked: ${(e as NodeJS.ErrnoException).code ?? 'unknown error'}` };
  }
}

function followSafely(path: string, uid: number, links: number): Checked {
  const dir = realpathSync(dirname(path));
  for (let d = dir; ; d = dirname(d)) {
    const why = unsafeEntry(d, statSync(d), uid);
    if (why !== undefined) return { ok: false, reason: why };
    if (dirname(d) === d) break;
  }
  const file = join(dir, basename(path));
  const stats = lstatSync(file);
  if (!stats.isSymbolicLink()) {
    const why = unsafeEntry(file, stats, uid);
    return why === undefined ? { ok: true, path: file } : { ok: false, reason: why };
  }
  if (links >= MAX_LINKS) return { ok: false, reason: `\`${path}\` goes through more than ${String(MAX_LINKS)} links` };
  return followSafely(resolve(dir, readlinkSync(file)), uid, links + 1);
}

/** Why others could change `path` (a real file or folder), or undefined when only root or `uid` can. */
function unsafeEntry(path: string, stats: Stats, uid: number): string | undefined {
  if (stats.uid !== 0 && stats.uid !== uid) return `\`${path}\` is owned by uid ${String(stats.uid)}`;
  const writable = stats.mode & 0o022;
  if (writable === 0) return undefined;
  // A root-owned sticky folder (/tmp): others may add names to it, but not rename or remove ours.
  if (stats.isDirectory() && stats.uid === 0 && (stats.mode & 0o1000) !== 0) return undefined;
  return `\`${path}\` is writable by ${writable === 0o022 ? 'group and others' : (writable & 0o020) !== 0 ? 'its group' : 'others'}`;
}
