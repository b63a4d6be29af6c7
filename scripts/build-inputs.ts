import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * What `npm run build` made dist/ from, so a test that runs the built command can tell when dist/
 * is older than the sources (issue 18: a broken `oracle halt` in the source left the test of the
 * built command green until someone rebuilt). The build clears the record first and writes it
 * last (`--clear`, then no argument), so a build that failed halfway leaves none.
 *
 * The inputs are every file the build reads from the repository: the server, shared and PWA
 * sources (tests excluded: they are not built), the build scripts, the shipped policy and the
 * package and compiler settings. Digests of contents, not times: a fresh clone has every file at
 * the clone's time.
 */
export const BUILD_RECORD = join('dist', 'build-inputs.json');
const INPUTS = ['server', 'shared', 'pwa', 'scripts', 'config', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'pwa.vite.config.ts'];
const SKIP = new Set(['node_modules', 'dist']);

interface BuildRecord {
  readonly v: 1;
  readonly files: Readonly<Record<string, string>>;
}

function walk(at: string, out: string[]): void {
  let entries;
  try {
    entries = readdirSync(at, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') {
      out.push(at);
      return;
    }
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  for (const entry of entries) {
    if (SKIP.has(entry.name)) continue;
    const path = join(at, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.isFile() && !entry.name.endsWith('.test.ts')) out.push(path);
  }
}

/** The digest of every build input, by its repository-relative path (with `/`). */
export function inputDigests(root: string): Record<string, string> {
  const files: string[] = [];
  for (const input of INPUTS) walk(join(root, input), files);
  const out: Record<string, string> = {};
  for (const file of files.sort()) out[relative(root, file).split(sep).join('/')] = createHash('sha256').update(readFileSync(file)).digest('hex');
  return out;
}

/** Why dist/ may not match the sources (what changed, and what to run), or undefined when it does. */
export function staleBuild(root: string): string | undefined {
  let recorded: BuildRecord;
  try {
    recorded = JSON.parse(readFileSync(join(root, BUILD_RECORD), 'utf8')) as BuildRecord;
  } catch {
    return `dist/ has no record of what it was built from (${BUILD_RECORD}): run \`npm run build\``;
  }
  const now = inputDigests(root);
  const changed = [...new Set([...Object.keys(now), ...Object.keys(recorded.files)])].filter((f) => now[f] !== recorded.files[f]).sort();
  if (changed.length === 0) return undefined;
  const [first] = changed;
  const more = changed.length > 1 ? ` and ${String(changed.length - 1)} more` : '';
  return `dist/ is older than the sources: ${first ?? ''} changed since the last build${more}; run \`npm run build\``;
}

/** Records what dist/ under `root` is built from (the build's last step). */
export function writeBuildRecord(root: string): void {
  mkdirSync(join(root, 'dist'), { recursive: true });
  const record: BuildRecord = { v: 1, files: inputDigests(root) };
  writeFileSync(join(root, BUILD_RECORD), `${JSON.stringify(record, null, 1)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = join(import.meta.dirname, '..');
  if (process.argv[2] === '--clear') rmSync(join(root, BUILD_RECORD), { force: true });
  else writeBuildRecord(root);
}
