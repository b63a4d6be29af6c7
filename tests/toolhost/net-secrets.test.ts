import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate } from '../../server/core/decide/decide.js';
import type { Runtime } from '../../server/app/runtime.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from './runtime-fixture.js';

/**
 * net.fetch with a named secret (issue 14, egress honesty): a person approves a card that names
 * the secret, the header and the host; the listener receives exactly that header with the stored
 * value; the value never comes back to the agent, never lands in the audit log, and never goes to
 * another origin. A value the model writes itself is refused before a byte leaves.
 */
describe('net.fetch with named secrets', () => {
  let tree: TempTree;
  let runtime: Runtime;
  let server: Server;
  let other: Server;
  let port = 0;
  let otherPort = 0;
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const seenElsewhere: IncomingHttpHeaders[] = [];
  // No pattern the redaction sink knows: only the store says it is a secret.
  const value = 'plain-words-only-the-store-knows-4711';

  const listen = async (s: Server): Promise<number> => {
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    const address = s.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      if (req.url === '/elsewhere') {
        res.writeHead(302, { location: `http://127.0.0.1:${String(otherPort)}/landed` });
        res.end();
        return;
      }
      // A debug endpoint: it echoes what it got, in a header and in the body.
      res.writeHead(200, { 'x-echo': req.headers.authorization ?? '' });
      res.end(`you sent: ${req.headers.authorization ?? 'nothing'}`);
    });
    other = createServer((req, res) => {
      seenElsewhere.push(req.headers);
      res.end('landed');
    });
    port = await listen(server);
    otherPort = await listen(other);
    tree = tempTree('oracle-net-secrets-');
    const policy = [
      'egress:',
      `  allow: [{ host: "127.0.0.1:${String(port)}", why: local test server }, { host: "127.0.0.1:${String(otherPort)}", why: another origin }, { host: "plain.example.com:*", why: any port }]`,
      'principals:',
      '  agents:',
      '    fetcher: { capabilities: [net.egress] }',
      '    keyed: { capabilities: [net.egress, secret.read] }',
      '',
    ].join('\n');
    runtime = await runtimeFor(tree, policy, { resolve: () => Promise.reject(new Error('no DNS for IP literals')) });
    await runtime.toolhost.env.secrets?.set('api', value);
  });
  afterAll(async () => {
    await runtime.close();
    server.close();
    other.close();
    tree.dispose();
  });

  const url = (path: string): string => `http://127.0.0.1:${String(port)}${path}`;
  const fetchWith = (args: Record<string, unknown>) => ({ tool: 'net.fetch', args: { url: url('/echo'), ...args } });
  const bearer = { Authorization: { secret: 'api', prefix: 'Bearer ' } };
  const phone = { id: 'dev_phone', kind: 'device' as const, approveT2: true, approveT3: false };

  /** Submits as `keyed`, lets a phone approve the card, and returns the result and the card. */
  async function approved(action: unknown) {
    const submitted = runtime.submit(action, 5000, 'keyed');
    let card: ReturnType<Runtime['desk']['list']>[number] | undefined;
    for (let i = 0; i < 100 && card === undefined; i++) {
      card = runtime.desk.list().find((c) => c.state === 'pending');
      if (card === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    if (card === undefined) throw new Error('no card was shown');
    await runtime.desk.answer(card.approval_id, { approver: phone, verdict: 'approve', nonce: card.nonce, argHash: card.arg_hash });
    return { result: await submitted, card };
  }

  it('needs a person, and the card says which secret goes in which header to which host', () => {
    const judged = evaluate(fetchWith({ secrets: bearer }), runtime.gate.context);
    expect(judged.decision).toMatchObject({ decision: 'needs-approval', tier: 'T2' });
    expect(judged.decision.reasons.at(-1)).toBe(`sends the secret \`api\` in header \`Authorization\` after \`Bearer \` to \`127.0.0.1:${String(port)}\``);
  });

  it('refuses an agent whose ceiling lacks secret.read, a plain-http host off loopback, and a header given twice', async () => {
    const denied = await runtime.submit(fetchWith({ secrets: bearer }), 0, 'fetcher');
    expect(denied).toMatchObject({ decision: 'deny', code: 'CAPABILITY_DENIED', executed: false });
    const judge = (args: Record<string, unknown>) => evaluate({ tool: 'net.fetch', args }, runtime.gate.context).decision;
    // Allow-listed, but plain http off loopback would carry the value readable.
    expect(judge({ url: 'http://plain.example.com/', headers: {} }).decision).toBe('allow');
    expect(judge({ url: 'http://plain.example.com/', secrets: bearer })).toMatchObject({ decision: 'deny', code: 'EGRESS_DENIED', reasons: [expect.stringMatching(/^a secret is sent over https only/u)] });
    expect(judge({ url: 'https://plain.example.com/', secrets: bearer }).decision).toBe('needs-approval');
    expect(judge({ url: url('/'), headers: { authorization: 'x' }, secrets: bearer })).toMatchObject({ decision: 'deny', code: 'ARG_SHAPE' });
    expect(judge({ url: url('/'), secrets: { 'Proxy-Authorization': { secret: 'api' } } })).toMatchObject({ decision: 'deny', code: 'ARG_SHAPE' });
    expect(judge({ url: url('/'), secrets: { Authorization: { secret: 'api', prefix: 'Bearer\r\nX: ' } } }).code).toBe('INPUT_INVALID');
    expect(seen, 'nothing was sent').toHaveLength(0);
  });

  it('sends the stored value in that header once approved, and never shows it back', async () => {
    const { result, card } = await approved(fetchWith({ secrets: bearer }));
    expect(result).toMatchObject({ executed: true, secrets_read: ['api'] });
    expect(seen.at(-1)?.headers.authorization).toBe(`Bearer ${value}`);
    expect(JSON.stringify(card)).not.toContain(value);
    const output = result.output as { body: string; headers: Record<string, string> };
    expect(output.body).toMatch(/^you sent: Bearer \[REDACTED:/u);
    expect(output.headers['x-echo']).toMatch(/^Bearer \[REDACTED:/u);
    expect(JSON.stringify(result)).not.toContain(value);
    const egress = auditRecords(runtime.gate.home).find((r) => r['kind'] === 'egress' && r['action_id'] === result.action_id);
    expect(egress?.['detail']).toMatchObject({ secrets: [{ header: 'Authorization', secret: 'api' }] });
    const log = join(runtime.gate.home, 'logs', 'audit');
    for (const name of readdirSync(log)) expect(readFileSync(join(log, name), 'utf8').split('\n').filter((line) => line.includes(value)), name).toEqual([]);
  });

  it('never sends the secret to another origin a redirect points to', async () => {
    const { result } = await approved({ tool: 'net.fetch', args: { url: url('/elsewhere'), secrets: bearer } });
    expect(result.output).toMatchObject({ status: 200, body: 'landed' });
    expect(seen.at(-1)?.headers.authorization).toBe(`Bearer ${value}`);
    expect(seenElsewhere.at(-1)?.authorization).toBeUndefined();
    expect(JSON.stringify(seenElsewhere)).not.toContain(value);
  });

  it('refuses a missing secret without sending anything', async () => {
    const before = seen.length;
    const { result } = await approved(fetchWith({ secrets: { 'x-api-key': { secret: 'nope' } } }));
    expect(result.error?.code).toBe('SECRET_MISSING');
    expect(seen).toHaveLength(before);
  });

  it('refuses a stored value the model wrote itself, in a header, the URL or a body, unsent', async () => {
    const before = seen.length;
    for (const args of [{ headers: { 'x-note': value } }, { url: url(`/echo?k=${value}`) }]) {
      const result = await runtime.run(fetchWith(args));
      expect(result, JSON.stringify(args)).toMatchObject({ executed: true, error: { code: 'EGRESS_DENIED' } });
      expect(result.error?.message).not.toContain(value);
    }
    const { result, card } = await approved(fetchWith({ method: 'POST', body: `{"key":"${value}"}` }));
    expect(result.error?.code).toBe('EGRESS_DENIED');
    expect(JSON.stringify(card), 'the card hides a stored value wherever the model put it').not.toContain(value);
    expect(seen, 'the listener got none of them').toHaveLength(before);
    const log = join(runtime.gate.home, 'logs', 'audit');
    for (const name of readdirSync(log)) expect(readFileSync(join(log, name), 'utf8').split('\n').filter((line) => line.includes(value)), name).toEqual([]);
  });
});
