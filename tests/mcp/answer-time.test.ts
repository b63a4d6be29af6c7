import { describe, expect, it } from 'vitest';
import { answerMs, remoteGate, type GateRequest } from '../../server/mcp/gate.js';

/**
 * How long the MCP server waits for the running gate's answer: the wait for a person, then the
 * action's own run time. A fixed 30 s past the wait had withdrawn (and so killed) every exec_run
 * longer than that, whatever its `timeout` said.
 */
describe('the time an MCP call gives the gate to answer', () => {
  const capture = (): { request: GateRequest; seen: number[] } => {
    const seen: number[] = [];
    const request: GateRequest = (call) => {
      seen.push(call.timeoutMs);
      return Promise.resolve({ status: 200, body: { decision: 'allow' } });
    };
    return { request, seen };
  };

  it('covers an exec_run for its whole timeout, after the wait for a person', async () => {
    const { request, seen } = capture();
    const gate = remoteGate(request);
    await gate.submit({ tool: 'exec.run', args: { program: 'npm', args: ['test'], timeout: 900 } }, 20_000, 'a');
    expect(seen).toEqual([20_000 + 900_000 + 30_000]);
    expect(answerMs({ tool: 'exec.run', args: { program: 'npm' } })).toBe(60_000 + 30_000);
    expect(answerMs({ tool: 'exec.run_with_secrets', args: { timeout: 7200 } })).toBe(3_600_000 + 30_000);
    // A delegate's limit is the policy's, up to the longest run there is.
    expect(answerMs({ tool: 'agent.delegate', args: { description: 'd', prompt: 'p' } })).toBe(3_600_000 + 30_000);
  });

  it('covers the gate’s own jobs for other tools, and the longest run when resuming an approval', async () => {
    const { request, seen } = capture();
    const gate = remoteGate(request);
    await gate.submit({ tool: 'git.commit', args: { repo: '/r', message: 'm' } }, 0, 'a');
    await gate.continueAction('ap-1', 5000, 'a');
    expect(seen[0]).toBeGreaterThanOrEqual(4 * 120_000);
    expect(seen[1]).toBeGreaterThan(5000 + 3_600_000);
  });
});
