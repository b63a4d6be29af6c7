#!/usr/bin/env node
/**
 * The `oracle` command's entry. Claude Code runs `oracle hook claude-code` on every tool call, so
 * that path loads only the hook's thin client; every other command loads the full CLI.
 */
const argv = process.argv.slice(2);

async function run(): Promise<number> {
  if (argv[0] === 'hook') {
    const { runHookCommand } = await import('./hook.js');
    return runHookCommand(argv.slice(1));
  }
  const { main } = await import('./commands.js');
  return main(argv);
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
