import { refused, type Outcome } from './outcome.js';
import { npmCommand } from './npm-commands.js';

/**
 * Arguments that turn an agent CLI's own permission checks off (issue 17): Claude Code's
 * `--dangerously-skip-permissions`, `--allow-dangerously-skip-permissions` (offers the same as a
 * mode), `--permission-mode bypassPermissions`, and settings that say `bypassPermissions` or
 * `disableAllHooks` (the latter would switch off ORACLE's own hook in the agent it starts). Judged
 * for every program, not only `claude`: the same flags reach it through `npx`, `node cli.js`,
 * `bunx`, a wrapper script or a `sh -c` line, so every token is searched, not only matched whole
 * (a prefix rule on options would refuse `git log --all`; Claude Code's parser takes none), values
 * case-insensitively, JSON escapes (`\u0050`) decoded first. A settings *file* is not read here.
 */
const SKIP_FLAG = /(?:^|[\s'"=;&|(])--(?:allow-)?dangerously-skip-permissions(?=$|[\s'"=;&|)])/u;
const PERMISSION_MODE = '--permission-mode';

/**
 * Whether the token holds `--permission-mode` followed, after any `=`, spaces and quotes, by
 * `bypass…`. A scan, not a regular expression: `\s+` then `\s*` backtracked quadratically, and a
 * 32 KiB argument of spaces held the gate's one thread for over a second.
 */
function asksBypassMode(token: string): boolean {
  const lower = token.toLowerCase();
  for (let at = lower.indexOf(PERMISSION_MODE); at >= 0; at = lower.indexOf(PERMISSION_MODE, at + 1)) {
    let i = at + PERMISSION_MODE.length;
    while (i < lower.length && /[=\s'"]/u.test(lower.charAt(i))) i++;
    if (lower.startsWith('bypass', i)) return true;
  }
  return false;
}
const BYPASS_WORDS = /bypasspermissions|disableallhooks/iu;
/** Options that hand an agent CLI a configuration of its own (settings, MCP servers, more folders, plugins). */
const DELEGATE_CONFIG_FLAG = /^--(?:settings|mcp-config|add-dir|plugin-dir)(?:=|$)/u;

/** The token with `\uXXXX` and `\"`-style JSON escapes decoded, so an escaped word is seen. */
function unescaped(token: string): string {
  if (!token.includes('\\')) return token;
  return token.replace(/\\u([0-9a-fA-F]{4})/gu, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))).replace(/\\(.)/gu, '$1');
}

export function agentBypassRefusal(argv: readonly string[]): Outcome | undefined {
  for (const [i, raw] of argv.entries()) {
    const token = unescaped(raw);
    const flag = SKIP_FLAG.exec(token)?.[0].trim().replace(/^['"=;&|(]+/u, '');
    if (flag !== undefined) return refused('PROGRAM_DENIED', 'builtin.agent.permissions', `\`${flag}\` turns the agent's own permission checks off; ORACLE never starts an agent that way`);
    const next = argv[i + 1];
    if (asksBypassMode(token) || (token === '--permission-mode' && next !== undefined && /^\s*['"]?bypass/iu.test(unescaped(next)))) {
      return refused('PROGRAM_DENIED', 'builtin.agent.permissions', '`--permission-mode bypassPermissions` turns the agent\u2019s own permission checks off');
    }
    if (BYPASS_WORDS.test(token)) return refused('PROGRAM_DENIED', 'builtin.agent.permissions', 'an argument asks for `bypassPermissions` or `disableAllHooks`: the agent would run without its permission checks or without ORACLE\u2019s hook');
  }
  return undefined;
}

/** Runners that start the program named by their first plain argument. */
const RUNNERS = new Set(['node', 'npx', 'bunx', 'bun', 'pnpm', 'yarn', 'deno', 'tsx', 'npm']);
const PACKAGE_RUNNERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const EXEC_WORDS: ReadonlySet<string> = new Set(['exec', 'x', 'dlx']);
const ORACLE_ENTRY = /(?:^|[\\/])(?:oracle|oracle\.js|oracle-gate)$/u;

/**
 * Whether a runner's argv starts ORACLE. A script runner (node, deno, tsx) runs its first plain
 * word. A package runner (npx, bunx, and npm, pnpm, yarn or bun with exec, x or dlx among its
 * plain words, npm's spellings resolved: `npm exe`, `npm --prefix . exec`) runs the package its
 * first plain word after that names, the one after `--`, the one `--package`/`-p` names, or a
 * shell line (`-c 'oracle approve'`, `--call=…`), every word of which counts.
 */
function runsOracle(program: string, argv: readonly string[]): boolean {
  if (program === 'npx' || program === 'bunx') return packageIsOracle(argv);
  const execAt = PACKAGE_RUNNERS.has(program) ? argv.findIndex((a) => !a.startsWith('-') && EXEC_WORDS.has(program === 'npm' ? npmCommand(a) : a)) : -1;
  return execAt < 0 ? ORACLE_ENTRY.test(argv.find((a) => !a.startsWith('-')) ?? '') : packageIsOracle(argv.slice(execAt + 1));
}

/** A package runner's arguments after its exec word: the package they name, or a shell line they hand it. */
function packageIsOracle(args: readonly string[]): boolean {
  const afterDashes = args.indexOf('--');
  const named: string[] = [args.find((a) => !a.startsWith('-')) ?? '', afterDashes < 0 ? '' : (args[afterDashes + 1] ?? '')];
  for (const [i, a] of args.entries()) {
    const given = /^(?:--package|--call|-p|-c)(?:=([\s\S]*))?$/u.exec(a);
    if (given !== null) named.push(...(given[1] ?? args[i + 1] ?? '').split(/[\s;&|()`'"]+/u));
  }
  return named.some((word) => ORACLE_ENTRY.test(word));
}

/**
 * ORACLE's own commands are the person's (issue 16 review): `oracle term attach`, `oracle resume`,
 * `oracle devices revoke`, `oracle agents add`… read the home's desktop token or its files
 * themselves, where no path rule of an agent's command can see them. An agent never runs them,
 * directly or through a runner (`npx oracle`, `node dist/server/cli/oracle.js`).
 */
export function oracleCommandRefusal(program: string, argv: readonly string[]): Outcome | undefined {
  if (program !== 'oracle' && !(RUNNERS.has(program) && runsOracle(program, argv))) return undefined;
  return refused('PROGRAM_DENIED', 'builtin.oracle', 'ORACLE’s own commands are the person’s (they hold the desktop’s credential); an agent never runs them');
}

/**
 * Why the delegate agent's argv (the policy's program and arguments, and the task) may not run, or
 * undefined: a permission-skipping flag in any spelling, or a configuration handed to it that ORACLE
 * does not read (it runs with its job's own). Checked when the policy loads and again at run.
 */
export function delegateArgvRefusal(argv: readonly string[]): string | undefined {
  const bypass = agentBypassRefusal(argv);
  if (bypass !== undefined) return bypass.reasons[0] ?? 'an argument turns the agent’s permission checks off';
  const config = argv.find((a) => DELEGATE_CONFIG_FLAG.test(a));
  return config === undefined ? undefined : `\`${config.slice(0, 40)}\` hands the delegate a configuration ORACLE does not read; it runs with its job's own`;
}
