/**
 * Whether a PATH entry is a folder a package manager put in front of PATH for the script it runs
 * (SPEC §6: programs are pinned from the PATH at start, and these must never win). npm (`npm start`,
 * `npm run`, `npx`) prepends `node_modules/.bin` of the project and of every parent folder, so
 * `/tmp/node_modules/.bin` under a world-writable /tmp too, the npx cache's
 * `~/.npm/_npx/<hash>/node_modules/.bin`, and its own `node-gyp-bin`; pnpm, yarn and bun add
 * `node_modules/.bin` the same way. What is in them was put there by a project, a package or
 * whoever could create the folder, not by the person who set PATH.
 */
export function isPackageManagerBin(entry: string): boolean {
  // Either separator (Windows PATHs use `\`); empty and `.` segments say nothing; case is folded
  // because Windows and macOS fold it, and on Linux a folded match only skips more.
  const segments = entry
    .split(/[\\/]/u)
    .filter((s) => s !== '' && s !== '.')
    .map((s) => s.toLowerCase());
  const last = segments.at(-1);
  return last === 'node-gyp-bin' || (last === '.bin' && segments.at(-2) === 'node_modules');
}
