import { describe, expect, it } from 'vitest';
import type { CallAnswer } from '../app/call-authorizer.js';
import { answerHook, type HookGate } from './claude-code.js';

/** The hook's answer waits for the audit: a record that cannot be written denies (SPEC §1.2). */
const gate = (answer: CallAnswer, record: () => Promise<void> = () => Promise.resolve()): HookGate => ({
  canAsk: true,
  parser: () => Promise.resolve(() => ({ error: 'no parser here' })),
  authorizeCall: () => Promise.resolve(answer),
  taint: () => undefined,
  confirm: () => undefined,
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
