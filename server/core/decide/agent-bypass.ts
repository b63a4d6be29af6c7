import { refused, type Outcome } from './outcome.js';

/**
 * Arguments that turn an agent CLI's own permission checks off (issue 17): Claude Code's
 * `--dangerously-skip-permissions`, `--allow-dangerously-skip-permissions` (offers the same as a
 * mode), `--permission-mode bypassPermissions`, and settings that say `bypassPermissions` or
 * `disableAllHooks` (the latter would switch off ORACLE's own hook in the agent it starts). Judged
 * for every program, not only `claude`: the same flags reach it through `npx`, `node cli.js`,
 * `bunx` or a wrapper script. Options are matched by their exact names, alone or as `--name=value`
 * (Claude Code's parser takes no abbreviations, and a prefix rule would refuse `git log --all`),
 * values case-insensitively. A settings *file* (`--settings path`) is not read here.
 */
const SKIP_FLAGS = ['--dangerously-skip-permissions', '--allow-dangerously-skip-permissions'] as const;
const BYPASS_WORDS = /bypasspermissions|disableallhooks/iu;

const named = (token: string, option: string): boolean => token === option || token.startsWith(`${option}=`);

export function agentBypassRefusal(argv: readonly string[]): Outcome | undefined {
  for (const [i, token] of argv.entries()) {
    const flag = SKIP_FLAGS.find((f) => named(token, f));
    if (flag !== undefined) return refused('PROGRAM_DENIED', 'builtin.agent.permissions', `\`${flag}\` turns the agent's own permission checks off; ORACLE never starts an agent that way`);
    if (named(token, '--permission-mode')) {
      const value = token.includes('=') ? token.slice(token.indexOf('=') + 1) : (argv[i + 1] ?? '');
      if (/^bypass/iu.test(value.trim())) return refused('PROGRAM_DENIED', 'builtin.agent.permissions', `\`--permission-mode ${value}\` turns the agent's own permission checks off`);
    }
    if (BYPASS_WORDS.test(token)) return refused('PROGRAM_DENIED', 'builtin.agent.permissions', 'an argument asks for `bypassPermissions` or `disableAllHooks`: the agent would run without its permission checks or without ORACLE\u2019s hook');
  }
  return undefined;
}
