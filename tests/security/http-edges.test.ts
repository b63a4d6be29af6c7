import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../fixtures/https-client.js';
import { startAgentGate, type AgentGate } from '../fixtures/agent-gate.js';

/** Issue 14 point 8, through the real HTTPS server: input no JSON text can carry faithfully is a clear refusal, never a 500. */
describe('edge inputs on the real HTTPS server', () => {
  let gate: AgentGate;
  beforeAll(async () => {
    gate = await startAgentGate('oracle-http-edges-', ['fs.read', 'fs.write']);
  });
  afterAll(async () => {
    await gate.close();
  });

  const post = (path: string, body: string) => call(`${gate.running.url}${path}`, { ca: gate.ca, method: 'POST', headers: { authorization: `Bearer ${gate.token}`, 'content-type': 'application/json' }, body });

  it.each([
    ['a lone surrogate in a path', '{"tool":"fs.read","args":{"path":"/p/\\ud800x"}}'],
    ['a lone surrogate in written content', `{"tool":"fs.write","args":{"path":"/p/a","content":"\\udfff"}}`],
    ['a lone surrogate in the tool name', '{"tool":"fs.\\ud800","args":{}}'],
  ])('%s is refused with a reason', async (_label, body) => {
    const reply = await post('/api/v1/actions', body);
    expect(reply.status).toBeLessThan(500);
    expect(JSON.stringify(reply.body)).toMatch(/INPUT_INVALID|deny/u);
  });

  it('a lone surrogate in a hook payload is a hook deny', async () => {
    const reply = await post('/api/v1/hooks/claude-code', '{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/p","tool_name":"Read","tool_input":{"file_path":"/p/\\ud800"}}');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
  });
});
