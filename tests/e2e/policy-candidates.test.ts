import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { launchChromium } from '../fixtures/browser.js';
import { call } from '../fixtures/https-client.js';
import { mcpHost, textOf } from '../fixtures/mcp-host.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * Agent-proposed policy changes (issue 16): an agent proposes through the REST API; nothing
 * changes until the desktop activates it; activation names the policy in force it was shown
 * against and is refused once that moved on; a change that widens an agent's ceiling needs the
 * typed phrase. The desktop screen (Chromium) shows the change in policy terms and activates it.
 */
const text = (root: string, caps: string, extra = '') => `scopes:\n  projects: { roots: [{ path: "${root}/projects", mode: rw }] }\n${extra}principals:\n  agents:\n    claude-code: { capabilities: [${caps}] }\n`;

describe.skipIf(process.env['ORACLE_SKIP_BROWSER'] === '1')('policy candidates', () => {
  let tree: TempTree;
  let running: Running;
  let browser: Browser;
  let desk: Page;
  let policy = '';
  let ca = '';
  let token = '';

  const propose = (body: unknown) => call(`${running.url}/api/v1/policy/candidates`, { ca, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const asDesktop = (path: string, body: unknown) => call(`${running.url}${path}`, { ca, method: 'POST', headers: { authorization: `Desktop ${running.desktop.localToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const caps = () => [...(running.runtime.gate.context.gate.policy.agents.get('claude-code')?.capabilities ?? [])].sort();

  beforeAll(async () => {
    tree = tempTree('oracle-candidates-');
    tree.dir('projects/app');
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, text(tree.root, 'fs.read'));
    running = await startServer({ home: tree.dir('home'), policy, port: 0 });
    ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    token = (await running.credentials.issue('ag', 'claude-code')).token;
    browser = await launchChromium([running.spkiSha256]);
    desk = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  });

  afterAll(async () => {
    await browser.close();
    await running.close();
    tree.dispose();
  });

  it('keeps a proposal as a candidate only, refuses one with errors, and refuses a stale activation', async () => {
    const bad = await propose({ policy: 'scopes: [', reason: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'INPUT_INVALID' } });
    const made = await propose({ policy: text(tree.root, 'fs.read', 'egress:\n  allow: [{ host: registry.npmjs.org }]\n'), reason: 'install packages' });
    expect(made.status).toBe(201);
    const candidate = made.body['candidate'] as { id: string; active_digest: string; changes: { what: string }[]; phrase: string | null };
    expect(candidate.changes.map((c) => c.what)).toEqual(['host registry.npmjs.org: allowed']);
    expect(candidate.phrase).toBeNull();
    // Nothing changed by itself.
    expect(readFileSync(policy, 'utf8')).toBe(text(tree.root, 'fs.read'));
    // The policy moves on (an edit and a reload) before the person activates: the activation is refused.
    writeFileSync(policy, text(tree.root, 'fs.read', 'egress:\n  default: deny\n'));
    expect((await running.runtime.reloadPolicy('test')).ok).toBe(true);
    const stale = await asDesktop(`/api/v1/policy/candidates/${candidate.id}/activate`, { active_digest: candidate.active_digest });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ error: { code: 'POLICY_REFUSED' } });
    expect(readFileSync(policy, 'utf8')).toBe(text(tree.root, 'fs.read', 'egress:\n  default: deny\n'));
    expect((await asDesktop(`/api/v1/policy/candidates/${candidate.id}/discard`, {})).status).toBe(200);
  });

  it('an MCP agent proposes through `oracle mcp` (a client of the running gate) and is told it waits for the person', async () => {
    const { client } = await mcpHost(['--home', running.runtime.gate.home, '--agent', 'claude-code']);
    try {
      const bad = await client.callTool({ name: 'oracle_propose_policy', arguments: { policy: 'scopes: [', reason: 'x' } });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toContain('error');
      const made = await client.callTool({ name: 'oracle_propose_policy', arguments: { policy: text(tree.root, 'fs.read', 'egress:\n  allow: [{ host: pypi.org }]\n'), reason: 'pip install' } });
      expect(made.isError).not.toBe(true);
      expect(textOf(made)).toContain('takes effect only when the person activates it on the desktop');
      expect(textOf(made)).not.toContain('REMOVES');
      const id = (made.structuredContent as { candidate: { id: string } }).candidate.id;
      expect((await asDesktop(`/api/v1/policy/candidates/${id}/discard`, {})).status).toBe(200);
      // A partial file (the new part only) would drop the scope the policy has: said first.
      const partial = await client.callTool({ name: 'oracle_propose_policy', arguments: { policy: 'egress:\n  allow: [{ host: pypi.org }]\n', reason: 'pip install' } });
      expect(textOf(partial)).toMatch(/Note: this candidate also REMOVES \d+ things? the policy has now \(path .*\/projects: was rw/u);
      const dropped = (partial.structuredContent as { candidate?: { id: string } }).candidate?.id;
      if (dropped !== undefined) expect((await asDesktop(`/api/v1/policy/candidates/${dropped}/discard`, {})).status).toBe(200);
    } finally {
      await client.close();
    }
  });

  it('the desktop shows a widening candidate in policy terms and activates it with the typed phrase', async () => {
    expect((await propose({ policy: text(tree.root, 'fs.read, fs.delete'), reason: 'clean up build output' })).status).toBe(201);
    await desk.goto(running.loginUrl);
    const card = desk.locator('article.candidate');
    await card.waitFor({ timeout: 20_000 });
    expect(await card.locator('ul.changes li').allInnerTexts()).toEqual(['gains agent claude-code: fs.delete (widens what agents may do)']);
    expect(await card.innerText()).toContain('clean up build output');
    expect(await card.locator('button.activate').isDisabled()).toBe(true);
    const phrase = (await card.locator('label code').textContent()) ?? '';
    expect(phrase).toMatch(/^activate [0-9a-f]{6}$/u);
    expect(caps()).toEqual(['fs.read']);
    await card.locator('input.candidate-phrase').fill(phrase);
    await card.locator('button.activate').click();
    await expect.poll(() => caps(), { timeout: 10_000 }).toEqual(['fs.delete', 'fs.read']);
    expect(readFileSync(policy, 'utf8')).toBe(text(tree.root, 'fs.read, fs.delete'));
    await desk.locator('article.candidate').waitFor({ state: 'detached', timeout: 10_000 });
    const records = auditRecords(running.runtime.gate.home).filter((r) => r['kind'] === 'policy.candidate').map((r) => r['outcome']);
    expect(records).toEqual(['proposed', 'discarded', 'proposed', 'discarded', 'proposed', 'discarded', 'proposed', 'activated']);
  });
});
