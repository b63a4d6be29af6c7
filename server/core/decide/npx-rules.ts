import { refused, type Outcome } from './outcome.js';

/**
 * Built-in npx knowledge that no policy can switch off: where npx's own options end and the
 * package's arguments begin. npm's `npx` script (bin/npx-cli.js, npm 7 to 11) walks the options
 * before the package name; an option it does not know as a switch, written without `=`, takes
 * the next word as its value. When that word was meant as the package name, npx finds no name,
 * puts no `--` before it, and npm reads EVERY later option as its own: `npx --no tsc --noEmit`
 * runs tsc without `--noEmit` (so it writes the build it was asked only to check), and
 * `npx --no tsc --script-shell=./x.sh` runs x.sh (both checked here with npm 11.19). A policy
 * pattern such as `--no tsc *` would judge those options as tsc's. So such an argv is refused,
 * with the spelling npx does read as meant: `--yes=false` (npm's documented "never download").
 */

/** Options npx-cli.js knows take no value (npm's boolean settings agents write, and its own). */
const SWITCHES = new Set(['yes', 'y', 'no-install', 'quiet', 'q', 'version', 'v', 'help', 'h', 'ignore-scripts', 'offline', 'prefer-offline', 'prefer-online', 'silent', 'legacy-peer-deps', 'workspaces', 'ws', 'include-workspace-root']);
/** Options npx-cli.js knows take the next word as their value. */
const VALUED = new Set(['package', 'p', 'cache', 'userconfig', 'call', 'c', 'shell', 'npm', 'node-arg', 'n']);

export function npxBuiltinRefusal(argv: readonly string[]): Outcome | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    // `--` or the package name: from here on every word is the package's.
    if (arg === '--' || !arg.startsWith('-')) return undefined;
    const key = arg.replace(/^-+/u, '');
    if (key.includes('=') || SWITCHES.has(key)) continue;
    const next = argv[i + 1];
    if (VALUED.has(key)) {
      i++;
      continue;
    }
    if (next !== undefined && !next.startsWith('-')) {
      return refused(
        'ARG_SHAPE',
        'programs.npx',
        `npx reads \`${next}\` as the value of \`${arg}\`, not as the package to run, and then takes every later option as npm's own instead of the package's (\`npx --no tsc --noEmit\` runs tsc without --noEmit): write \`npx --yes=false ${next} …\` to run only an installed copy`,
      );
    }
  }
  return undefined;
}
