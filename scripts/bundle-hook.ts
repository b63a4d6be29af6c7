import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';

/**
 * The hook Claude Code starts on every tool call (SPEC §11), bundled: Node spends longer finding,
 * reading, compiling and linking a hundred small ES modules than running them. Three bundles in
 * dist/hook:
 *
 * - `hook.js` (ESM): the thin client that forwards a payload to a running gate. `oracle hook`
 *   loads it when it is there (server/cli/oracle.ts).
 * - `oracle-hook.cjs` (CommonJS): the same thin client as the command `oracle integrate
 *   claude-code` installs (server/cli/hook-entry.ts); Node starts it without its ES module loader.
 * - `headless.cjs` (CommonJS): what judges a call when no gate runs, loaded by
 *   server/cli/headless-loader.ts through V8's code cache (server/adapters/cached-script.ts),
 *   which only CommonJS can use on Node 20. One headless call at the end of the build makes
 *   the cache.
 *
 * Kept outside the bundles: packages that find files of their own beside their code (the bash
 * grammar's WebAssembly) or that are native addons; Node resolves them from node_modules as usual.
 */
const root = join(import.meta.dirname, '..');
const cli = join(root, 'dist', 'server', 'cli');
const out = join(root, 'dist', 'hook');
const external = ['web-tree-sitter', 'tree-sitter-bash', 'argon2', '@napi-rs/keyring'];

/**
 * The YAML parser runs only when the headless hook finds no compiled policy in its cache (the first
 * call, or the first after the policy changed; server/adapters/policy-cache.ts), yet bundled it is
 * a fifth of the bundle, read and set up on every call. In the headless bundle `yaml` is a
 * stand-in that loads the package from node_modules on first use, as the bash grammar is. A name
 * the stand-in does not carry fails the build ("No matching export"), never a call.
 */
const YAML_NAMES = ['parseDocument', 'stringify', 'isMap', 'isPair', 'isScalar', 'isSeq'];
const yamlOnDemand: Plugin = {
  name: 'yaml-on-demand',
  setup(b) {
    b.onResolve({ filter: /^yaml$/ }, (args) => (args.namespace === 'yaml-on-demand' ? { path: 'yaml', external: true } : { path: 'yaml', namespace: 'yaml-on-demand' }));
    b.onLoad({ filter: /.*/, namespace: 'yaml-on-demand' }, () => ({
      contents: [
        'let loaded;',
        "const yaml = () => (loaded ??= require('yaml'));",
        ...YAML_NAMES.map((n) => `export const ${n} = (...a) => yaml().${n}(...a);`),
        // load.ts only constructs it (`new LineCounter()`); a constructor returning an object yields that object.
        'export function LineCounter() { return new (yaml().LineCounter)(); }',
      ].join('\n'),
      loader: 'js',
      resolveDir: root,
    }));
  },
};

rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: { hook: join(cli, 'hook.js') },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  // The headless half is the CommonJS bundle below, never this module graph.
  external: [...external, './hook-headless.js'],
  // Bundled CommonJS dependencies call require() for Node's own modules.
  banner: { js: "import { createRequire as __oracleRequire } from 'node:module'; const require = __oracleRequire(import.meta.url);" },
  logLevel: 'warning',
});
// The command hook's own entry: the same thin client as CommonJS, which Node starts without its
// ES module loader. `oracle integrate claude-code` installs it.
await build({
  entryPoints: [join(cli, 'hook-entry.js')],
  outfile: join(out, 'oracle-hook.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  external: [...external, './hook-headless.js'],
  define: { 'import.meta.url': '__oracleModuleUrl' },
  banner: { js: "var __oracleModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});
const headless = await build({
  entryPoints: [join(cli, 'hook-headless.js')],
  outfile: join(out, 'headless.cjs'),
  plugins: [yamlOnDemand],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  external,
  // CommonJS has no import.meta: its URL is the bundle's own (used to find the install and the grammar).
  define: { 'import.meta.url': '__oracleModuleUrl' },
  banner: { js: "var __oracleModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  metafile: true,
  logLevel: 'warning',
});
// Code run from V8's code cache cannot import() on Node 20: lazy loads use lazyModule (server/adapters/lazy-module.ts).
const dynamic = Object.values(headless.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path));
if (dynamic.length > 0) throw new Error(`dist/hook/headless.cjs would import() ${dynamic.join(', ')}; load it with lazyModule instead`);

// One call with no gate running makes the code cache: a Read the shipped policy allows (in
// ~/projects, with HOME pointed at a throwaway folder), so what V8 keeps compiled is the path an
// allowed call takes.
const scratch = mkdtempSync(join(tmpdir(), 'oracle-hook-warm-'));
try {
  const project = join(scratch, 'projects', 'app');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'README.md'), '# warm\n');
  const payload = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 'build', cwd: project, tool_name: 'Read', tool_input: { file_path: join(project, 'README.md') } });
  const run = spawnSync(process.execPath, [join(out, 'oracle-hook.cjs'), 'hook', 'claude-code', '--home', join(scratch, 'home')], { input: payload, encoding: 'utf8', env: { ...process.env, HOME: scratch } });
  if (run.status !== 0 || !run.stdout.includes('"permissionDecision":"allow"')) throw new Error(`the bundled hook did not answer: exit ${String(run.status)} ${run.stderr}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
