import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { runOracle, type Run } from '../cli/run-oracle.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * The hook never fails open (SPEC §11): Claude Code goes on with a tool call on any exit other than
 * 0 and 2, or on exit 0 with nothing to read. Malformed payloads through the built command, with a
 * gate running (the thin client forwards) and without one (judged here): every run either prints
 * a decision and exits 0, or exits 2.
 */
const TOOLS = ['Bash', 'Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'WebFetch', 'Agent', 'Skill', 'EnterWorktree', 'CronCreate', 'Teleport', 'mcp__x__y'];

function payloads(cwd: string, count: number): Buffer[] {
  const fixed: (string | Buffer)[] = [
    'null', '[]', '0', '"PreToolUse"', 'true', '{}', '', 'not json', '{"hook_event_name":', '\u0000\u0001',
    '{"hook_event_name":"PreToolUse"}',
    '{"hook_event_name":"PreToolUse","tool_name":null,"tool_input":null}',
    '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":["rm","-rf","/"]}}',
    '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"rm -rf /"}',
    '{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":{"toString":"x"}}}',
    '{"hook_event_name":"PreToolUse","tool_name":"__proto__","tool_input":{"__proto__":{"polluted":1}}}',
    '{"hook_event_name":"PostToolUse","tool_name":"WebFetch","session_id":7,"tool_input":[]}',
    Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
    Buffer.alloc(8 * 1024 * 1024 + 10, 0x61),
    JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', cwd, tool_input: { command: `${'('.repeat(5000)}ls${')'.repeat(5000)}` } }),
  ];
  const arbitrary = fc.sample(
    fc.oneof(
      fc.jsonValue(),
      fc.record({ hook_event_name: fc.oneof(fc.constantFrom('PreToolUse', 'PostToolUse'), fc.jsonValue()), session_id: fc.jsonValue(), cwd: fc.oneof(fc.constant(cwd), fc.jsonValue()), tool_name: fc.oneof(fc.constantFrom(...TOOLS), fc.jsonValue()), tool_input: fc.jsonValue() }, { requiredKeys: [] }),
      fc.record({ hook_event_name: fc.constant('PreToolUse'), cwd: fc.constant(cwd), tool_name: fc.constant('Bash'), tool_input: fc.record({ command: fc.string({ unit: 'binary', maxLength: 200 }) }) }),
    ),
    { numRuns: Math.max(0, count - fixed.length), seed: 20261201 },
  );
  return [...fixed.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)), ...arbitrary.map((p) => Buffer.from(JSON.stringify(p)))].slice(0, count);
}

/** Never fails open: a decision (or `{}` for PostToolUse) on stdout with exit 0, or exit 2. */
function failsClosed(run: Run, input: Buffer): void {
  const shown = input.length > 200 ? `${input.subarray(0, 200).toString('utf8')}…` : input.toString('utf8');
  expect([0, 2], `exit ${String(run.code)} for ${shown}: ${run.stderr}`).toContain(run.code);
  if (run.code !== 0) return;
  const out = JSON.parse(run.stdout) as { hookSpecificOutput?: { permissionDecision?: string } };
  expect(typeof out, shown).toBe('object');
  const decision = out.hookSpecificOutput?.permissionDecision;
  if (decision === undefined) {
    // Only a PostToolUse report may be answered without a decision.
    expect(input.toString('utf8'), `no decision for ${shown}`).toContain('PostToolUse');
  } else {
    expect(['allow', 'deny', 'ask']).toContain(decision);
  }
}

async function inBatches(inputs: readonly Buffer[], run: (input: Buffer) => Promise<void>, width = 4): Promise<void> {
  for (let i = 0; i < inputs.length; i += width) await Promise.all(inputs.slice(i, i + width).map(run));
}

describe('the hook through the built command never fails open', () => {
  let tree: TempTree;
  let home = '';
  let app = '';
  let policy = '';
  let running: Running | undefined;
  beforeAll(async () => {
    tree = tempTree('oracle-hook-fuzz-');
    home = tree.dir('home');
    app = tree.dir('projects/app');
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write, proc.spawn] }\n`);
    expect((await runOracle(['integrate', 'claude-code', '--project', app, '--home', home, '--policy', policy])).code).toBe(0);
  });
  afterAll(async () => {
    await running?.close();
    tree.dispose();
  });

  it('without a gate: 40 malformed payloads, each answered or blocked', async () => {
    await inBatches(payloads(app, 40), async (input) => {
      failsClosed(await runOracle(['hook', 'claude-code', '--home', home, '--policy', policy], '', process.env, input), input);
    });
  }, 180_000);

  it('with a gate running: 500 malformed payloads forwarded, each answered or blocked', async () => {
    running = await startServer({ home, policy, port: 0, hookBudgetMs: 1000 });
    await inBatches(payloads(app, 500), async (input) => {
      failsClosed(await runOracle(['hook', 'claude-code', '--home', home], '', process.env, input), input);
    });
  }, 300_000);
});
