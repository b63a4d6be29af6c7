import { describe, expect, it } from 'vitest';
import type { CallAnswer, CallRequest } from '../app/call-authorizer.js';
import { loadBashParser } from '../adapters/bash-parser.js';
import { answerHook, type HookGate } from './claude-code.js';

/** The hook's answer waits for the audit: a record that cannot be written denies (SPEC §1.2). */
const gate = (answer: CallAnswer, record: () => Promise<void> = () => Promise.resolve()): HookGate => ({
  canAsk: true,
  parser: () => Promise.resolve(() => ({ error: 'no parser here' })),
  authorizeCall: () => Promise.resolve(answer),
  taint: () => undefined,
  confirm: () => Promise.resolve(),
  record,
});
const read = { hook_event_name: 'PreToolUse', session_id: 's', cwd: '/p', tool_name: 'Read', tool_input: { file_path: '/p/a' } };
const decisionOf = (output: Readonly<Record<string, unknown>>): unknown => (output['hookSpecificOutput'] as Record<string, unknown>)['permissionDecision'];

describe('the hook answer and the audit', () => {
  it('allows once the decision records and its own record are durable', async () => {
    const answer = await answerHook(read, gate({ allowed: true, reason: 'T0', durable: Promise.resolve() }));
    expect(decisionOf(answer.output)).toBe('allow');
  });

  it('denies an allowed call whose decision record could not be written', async () => {
    const durable = Promise.reject(new Error('disk full'));
    durable.catch(() => undefined);
    const answer = await answerHook(read, gate({ allowed: true, reason: 'T0', durable }));
    expect(decisionOf(answer.output)).toBe('deny');
    expect(JSON.stringify(answer.output)).toContain('disk full');
  });

  it('denies an allowed call whose own answer record could not be written', async () => {
    const answer = await answerHook(read, gate({ allowed: true, reason: 'T0', durable: Promise.resolve() }, () => Promise.reject(new Error('no space'))));
    expect(decisionOf(answer.output)).toBe('deny');
  });
});

describe('a skill’s shell command (PreSkillShellCommand)', () => {
  const skill = { hook_event_name: 'PreSkillShellCommand', session_id: 's', cwd: '/p', tool_name: 'Bash', tool_input: { command: 'cat /home/u/.ssh/id_rsa' }, tool_use_id: 'skill-1', command_name: 'peek' };
  const withParser = (answer: CallAnswer, seen: CallRequest[]): HookGate => ({
    ...gate(answer),
    parser: loadBashParser,
    authorizeCall: (call) => {
      seen.push(call);
      return Promise.resolve(answer);
    },
  });

  it('is judged as the Bash command it is, and the answer names its own event', async () => {
    const seen: CallRequest[] = [];
    const answer = await answerHook(skill, withParser({ allowed: false, reason: 'PATH_DENY_ALWAYS: .ssh' }, seen));
    expect(seen[0]?.parts).toEqual([expect.objectContaining({ tool: 'fs.read', args: { path: '/home/u/.ssh/id_rsa' } })]);
    expect(answer.output['hookSpecificOutput']).toMatchObject({ hookEventName: 'PreSkillShellCommand', permissionDecision: 'deny' });
    const allowed = await answerHook({ ...skill, tool_input: { command: 'echo hi' } }, withParser({ allowed: true, reason: 'T0', durable: Promise.resolve() }, []));
    expect(allowed.output['hookSpecificOutput']).toMatchObject({ hookEventName: 'PreSkillShellCommand', permissionDecision: 'allow' });
  });

  it('refuses any other event, naming the one it answers', async () => {
    const answer = await answerHook({ ...skill, hook_event_name: 'UserPromptSubmit' }, withParser({ allowed: true, reason: 'T0' }, []));
    expect(answer.output['hookSpecificOutput']).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
  });
});
