#!/usr/bin/env node
import { importHookBundle } from '../adapters/hook-bundle.js';
import type * as HookModule from './hook.js';

/**
 * The `oracle` command's entry. Claude Code runs `oracle hook claude-code` on every tool call, so
 * that path loads only the hook: the bundle the build makes of it (dist/hook, see
 * scripts/bundle-hook.ts), or its modules when run from source; every other command loads the full CLI.
 */
const argv = process.argv.slice(2);

async function run(): Promise<number> {
  if (argv[0] === 'hook') {
    const { runHookCommand } = ((await importHookBundle()) ?? (await import('./hook.js'))) as typeof HookModule;
    return runHookCommand(argv.slice(1));
  }
  quietOnClosedPipe(argv[0] === 'serve');
  const { main } = await import('./commands.js');
  return main(argv);
}

/**
 * A reader that stops early (`oracle undo list | head`) closes the pipe: a listing stops quietly,
 * as Unix tools do, instead of dying with a stack trace. The gate (`serve`) keeps running: its
 * stdout is only where it reports, and a closed one must not take the gate down.
 */
function quietOnClosedPipe(keepRunning: boolean): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    if (!keepRunning) process.exit(process.exitCode ?? 0);
  });
}

run().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    // Last resort: say what happened, never print a stack with secrets in it to a shared terminal.
    process.stderr.write(`oracle: internal error: ${e instanceof Error ? e.message : 'unknown'}\n`);
    process.exitCode = 70;
  },
);
