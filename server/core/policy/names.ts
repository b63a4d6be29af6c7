import type { PathFlavor } from '../paths/flavor.js';
import { trimEnd } from '../../../shared/trim-end.js';

/** `~` expands in the policy file only (SPEC §3), to the user's home directory. */
export function expandTilde(text: string, userHome: string): string {
  if (text === '~') return userHome;
  if (text.startsWith('~/') || text.startsWith('~\\')) return trimEnd(userHome, '\\/') + '/' + text.slice(2);
  return text;
}

/** A path written for the other family of hosts: kept in the file, without effect here. */
export function isForeignPath(text: string, flavor: PathFlavor): boolean {
  return flavor.kind === 'posix' ? /^[A-Za-z]:[\\/]/u.test(text) : text.startsWith('/') && !text.startsWith('//');
}

/** Globs match `/`-separated canonical paths, so Windows backslashes become slashes. */
export function normaliseGlob(pattern: string, flavor: PathFlavor, userHome: string): string {
  const expanded = expandTilde(pattern, userHome);
  return flavor.kind === 'win32' ? expanded.replaceAll('\\', '/') : expanded;
}

/** Lower case, no trailing dot: `Example.COM.` and `example.com` are one host. */
export function normaliseHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/u, '');
}
