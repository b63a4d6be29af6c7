import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { call } from '../fixtures/https-client.js';
import { listen, type Sse } from '../fixtures/sse.js';
import { mcpHost, textOf } from '../fixtures/mcp-host.js';
import { pairScriptedPhone, type ScriptedPhone } from '../fixtures/scripted-phone.js';
import { browserKeys, startPushService, type PushService } from '../fixtures/push-service.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * A card nobody answered in time comes back to its agent with who could see it (issue 13: a
 * pending answer never points at a device that cannot answer): counted by the gate from the
 * screens open on its live events, the tray reading its queue and the phones push goes to, through the real HTTPS server,
 * `oracle mcp` and Claude Code's http hook.
 */
describe('who could see a card, as the agent is told', () => {
  let tree: TempTree;
  let running: Running;
  let service: PushService;
  let ca = '';
  let token = '';
  let host: { client: Client };
  const streams: Sse[] = [];
  const app = () => join(tree.root, 'projects', 'app');

  beforeAll(async () => {
    tree = tempTree('oracle-asked-');
    tree.dir('projects/app');
    for (const name of ['a.txt', 'b.txt', 'c.txt', 'd.txt']) writeFileSync(join(app(), name), 'x\n');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    mcp: { capabilities: [fs.read, fs.write, fs.delete, proc.spawn] }\n`);
    service = await startPushService();
    running = await startServer({ home: tree.dir('home'), policy, port: 0, hookBudgetMs: 300, push: { origins: [service.origin], ca: service.ca } });
    ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    token = (await running.credentials.issue('ag', 'mcp')).token;
    host = await mcpHost(['--home', running.runtime.gate.home, '--wait', '0']);
  });
  afterAll(async () => {
    for (const s of streams) s.req.destroy();
    await host.client.close();
    await running.close();
    await service.close();
    tree.dispose();
  });

  const submit = async (path: string) => {
    const reply = await call(`${running.url}/api/v1/actions?wait=0`, { ca, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'fs.delete', args: { path } }) });
    expect(reply.body['status']).toBe('pending');
    return reply.body;
  };
  const hookCall = async (file: string) => {
    const payload = { session_id: 's-asked', cwd: app(), hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: `rm ${file}` } };
    const reply = await call(`${running.url}/api/v1/hooks/claude-code`, { ca, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(payload) });
    return JSON.stringify(reply.body);
  };
  const subscribers = async (n: number) => {
    await expect.poll(() => running.runtime.events.subscribers, { timeout: 10_000 }).toBe(n);
  };

  it('says nobody can see it when no screen is open and no phone has notifications on', async () => {
    const body = await submit(join(app(), 'a.txt'));
    expect(body['asked']).toEqual({ desktop_screens: 0, desktop_tray: 0, phone_screens: 0, phones_with_notifications: 0 });
    const viaMcp = await host.client.callTool({ name: 'fs_delete', arguments: { path: join(app(), 'b.txt') } });
    expect(viaMcp.isError).toBe(true);
    expect(textOf(viaMcp)).toContain('waits for a person at the desktop or on a paired phone; nobody can see it now: no ORACLE screen or tray is open');
    expect(textOf(viaMcp)).toContain('`oracle desktop`');
    // Claude Code is told at once, not held for its whole budget by a wait nobody can end.
    const answered = await hookCall('c.txt');
    expect(answered).toContain('this T2 call needs a person and nobody was there to ask (nobody can see it now');
    // And why a person was needed, so the model can change course.
    expect(answered).toContain('A person was needed because: fs.delete');
  });

  it('counts the desktop screens and phones open on the live events and the phones push reaches, and stops counting a closed one', async () => {
    const phone: ScriptedPhone = await pairScriptedPhone({ url: running.url, ca, desktopToken: running.desktop.localToken });
    const keys = browserKeys();
    expect((await phone.notifications({ endpoint: `${service.origin}/push/one`, keys: { p256dh: keys.p256dh, auth: keys.authText } })).status).toBe(200);
    // The scripted phone holds its live stream open, as the app does while it is open.
    streams.push(await listen(`${running.url}/api/v1/events`, ca, { authorization: `Desktop ${running.desktop.localToken}` }));
    await subscribers(2);
    expect((await submit(join(app(), 'a.txt')))['asked']).toEqual({ desktop_screens: 1, desktop_tray: 0, phone_screens: 1, phones_with_notifications: 1 });
    const viaMcp = await host.client.callTool({ name: 'fs_delete', arguments: { path: join(app(), 'b.txt') } });
    expect(textOf(viaMcp)).toContain('it reaches 1 desktop screen, ORACLE open on 1 phone, 1 paired phone with notifications on');
    expect(await hookCall('d.txt')).toContain('nobody approved this T2 call in time (it reaches 1 desktop screen');

    // The desktop closes its screen: from then on it is not counted.
    streams.shift()?.req.destroy();
    await subscribers(1);
    expect((await submit(join(app(), 'a.txt')))['asked']).toEqual({ desktop_screens: 0, desktop_tray: 0, phone_screens: 1, phones_with_notifications: 1 });
  });

  it('counts the tray while it reads the approval queue with the desktop token, as `oracle tray` does', async () => {
    const tray = await call(`${running.url}/api/v1/approvals`, { ca, headers: { authorization: `Desktop ${running.desktop.localToken}` } });
    expect(tray.status).toBe(200);
    expect((await submit(join(app(), 'a.txt')))['asked']).toMatchObject({ desktop_screens: 0, desktop_tray: 1 });
  });
});
