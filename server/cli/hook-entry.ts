import { runHookCommand } from './hook.js';

/**
 * The command `oracle integrate claude-code` installs: `node dist/hook/oracle-hook.cjs hook
 * claude-code --home DIR`, the same arguments as `oracle hook claude-code`, run from a CommonJS
 * bundle of the hook alone (scripts/bundle-hook.ts). Node starts a CommonJS file without its ES
 * module loader, which is most of what a thin client that forwards one payload costs. It never
 * fails open: anything but a decision on stdout exits 2, which Claude Code treats as blocking.
 */
const argv = process.argv.slice(2);
const run = argv[0] === 'hook' ? runHookCommand(argv.slice(1)) : Promise.resolve(usage());

function usage(): number {
  process.stderr.write('usage: oracle-hook.cjs hook claude-code [--home DIR] [--policy FILE]\n');
  return 2;
}

run.then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`oracle hook: failed closed: ${e instanceof Error ? e.message : 'unknown error'}\n`);
    process.exitCode = 2;
  },
);
