import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeLinkReader } from '../../server/adapters/link-reader.js';
import { evaluate } from '../../server/core/decide/decide.js';
import type { DecideContext } from '../../server/core/decide/context.js';
import { REPO } from '../arch/source-files.js';
import { testContext } from '../fixtures/context.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { judgePayload } from '../hook/judge.js';

/**
 * An agent CLI with its own permission checks switched off (issue 17): every spelling of Claude
 * Code's bypass flags is refused, whichever program carries them (claude, npx, node on its
 * cli.js) and whatever the policy lists, through exec.run and through Claude Code's own Bash.
 */
const SPELLINGS: readonly (readonly string[])[] = [
  ['--dangerously-skip-permissions'],
  ['--dangerously-skip-permissions=true'],
  ['--allow-dangerously-skip-permissions'],
  ['--permission-mode', 'bypassPermissions'],
  ['--permission-mode=bypassPermissions'],
  ['--permission-mode', 'BYPASSPERMISSIONS'],
  ['--permission-mode', ' bypassPermissions'],
  // one token, as a `sh -c` line carries it: any run of `=`, spaces and quotes before the mode
  ['--permission-mode   "bypassPermissions"'],
  ["--permission-mode='bypassPermissions'"],
  ['--permission-mode=" bypassPermissions"'],
  [`--permission-mode${' '.repeat(32_000)}bypassPermissions`],
  ['--settings', '{"permissions":{"defaultMode":"bypassPermissions"}}'],
  ['--settings={"disableAllHooks":true}'],
  ['--settings', '{"permissions":{"defaultMode":"bypass\\u0050ermissions"}}'],
];
const CARRIERS: readonly (readonly string[])[] = [['claude'], ['npx', '@anthropic-ai/claude-code'], ['node', 'node_modules/@anthropic-ai/claude-code/cli.js']];

let tree: TempTree;
let ctx: DecideContext;
let app = '';

beforeAll(() => {
  tree = tempTree('oracle-bypass-');
  const home = tree.dir('home');
  app = tree.dir('home/projects/app');
  const yaml = readFileSync(`${REPO}/config/policy.yaml`, 'utf8').replace('programs:\n', 'programs:\n  claude: { allow_args_matching: ["*"] }\n');
  ctx = testContext(yaml, { reader: nodeLinkReader(), pins: { git: '/usr/bin/git', npm: '/usr/bin/npm', node: '/usr/bin/node', npx: '/usr/bin/npx', claude: '/usr/bin/claude' }, userHome: home, oracleHome: `${tree.root}/oracle-home` });
});
afterAll(() => {
  tree.dispose();
});

describe('permission-skipping flags of an agent CLI', () => {
  for (const carrier of CARRIERS) {
    for (const spelling of SPELLINGS) {
      const argv = [...carrier.slice(1), '-p', 'fix the tests', ...spelling];
      it(`refuses ${[carrier[0] ?? '', ...argv].join(' ')} through exec.run`, () => {
        const { decision } = evaluate({ tool: 'exec.run', args: { program: carrier[0], args: argv, cwd: app } }, ctx);
        expect(decision).toMatchObject({ decision: 'deny', code: 'PROGRAM_DENIED', rule: 'builtin.agent.permissions' });
      });
    }
  }

  it('refuses them in Claude Code’s Bash too, however the command line is written', async () => {
    for (const command of ['claude -p "fix it" --dangerously-skip-permissions', 'npx @anthropic-ai/claude-code --permission-mode bypassPermissions -p x', "claude --settings '{\"disableAllHooks\": true}' -p x", 'echo hi && claude --dangerously-skip-permissions', "sh -c 'claude --dangerously-skip-permissions -p x'", "bash -c \"npx @anthropic-ai/claude-code --permission-mode=bypassPermissions\""]) {
      const result = await judgePayload({ session_id: 's', cwd: app, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } }, ctx);
      expect(result.outcome, command).toBe('deny');
      expect(result.reason, command).toMatch(/permission checks|bypassPermissions/u);
    }
  });

  it('refuses them in a line typed into a terminal', () => {
    for (const text of ['claude --dangerously-skip-permissions', 'npx @anthropic-ai/claude-code --permission-mode bypassPermissions -p x']) {
      expect(evaluate({ tool: 'term.write', args: { session: 'dev', text } }, ctx).decision, text).toMatchObject({ decision: 'deny', code: 'PROGRAM_DENIED' });
    }
  });

  it('never lets an agent run ORACLE’s own commands, which hold the desktop’s credential', async () => {
    for (const [program, args] of [['oracle', ['term', 'attach', 'dev']], ['oracle', ['resume']], ['npx', ['oracle', 'devices', 'revoke', 'dev_1']], ['node', ['/opt/oracle/dist/server/cli/oracle.js', 'term', 'attach', 'dev']]] as const) {
      expect(evaluate({ tool: 'exec.run', args: { program, args, cwd: app } }, ctx).decision, `${program} ${args.join(' ')}`).toMatchObject({ decision: 'deny', code: 'PROGRAM_DENIED', rule: 'builtin.oracle' });
    }
    const piped = await judgePayload({ session_id: 's', cwd: app, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: "printf 'rm -rf ~\\r' | oracle term attach dev" } }, ctx);
    expect(piped.outcome).toBe('deny');
    // A file or a word named oracle is only that.
    expect(evaluate({ tool: 'exec.run', args: { program: 'git', args: ['log', '--grep', 'oracle'], cwd: app } }, ctx).decision.decision).toBe('allow');
  });

  it('leaves the rest alone: the everyday options that only look alike', () => {
    for (const args of [['-p', 'x', '--permission-mode', 'plan'], ['-p', 'x', '--permission-mode=acceptEdits'], ['--help'], ['-p', `--permission-mode${' '.repeat(32_000)}plan`]]) {
      expect(evaluate({ tool: 'exec.run', args: { program: 'claude', args, cwd: app } }, ctx).decision.decision, args.join(' ')).toBe('allow');
    }
    expect(evaluate({ tool: 'exec.run', args: { program: 'git', args: ['log', '--all', '--oneline'], cwd: app } }, ctx).decision.decision).toBe('allow');
    expect(evaluate({ tool: 'exec.run', args: { program: 'claude', args: ['-p', 'explain the --dangerously-skip-permissions-free setup'], cwd: app } }, ctx).decision.decision).toBe('allow');
  });
});
