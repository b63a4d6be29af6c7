import { lstatSync, readlinkSync } from 'node:fs';
import type { Entry, LinkReader } from '../core/paths/resolve.js';

/**
 * The real file system behind the core's only I/O (SPEC §5 step 8): lstat never follows the last
 * link, readlink gives its raw target, and the core walks the rest.
 */
export function nodeLinkReader(platform: NodeJS.Platform = process.platform): LinkReader {
  return {
    entry(path: string): Entry {
      try {
        const stat = lstatSync(toNative(path, platform));
        if (stat.isSymbolicLink()) return { kind: 'link', target: fromNativeTarget(readlinkSync(toNative(path, platform)), platform) };
        if (stat.isDirectory()) return { kind: 'dir' };
        if (stat.isFile()) return { kind: 'file' };
        return { kind: 'other' };
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return { kind: 'missing' };
        return { kind: 'error', reason: code ?? 'unknown error' };
      }
    },
  };
}

function toNative(path: string, platform: NodeJS.Platform): string {
  return platform === 'win32' ? path.replaceAll('/', '\\') : path;
}

/**
 * Windows reports junction targets in the `\\?\C:\…` form; for a plain drive path that prefix
 * only disables normalisation we then do ourselves. `\\?\UNC\…` and every other device form is
 * left as it is, so the core refuses it.
 */
function fromNativeTarget(target: string, platform: NodeJS.Platform): string {
  if (platform === 'win32' && /^\\\\\?\\[A-Za-z]:\\/u.test(target)) return target.slice(4);
  return target;
}
