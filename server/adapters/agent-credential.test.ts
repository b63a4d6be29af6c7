import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentCredential } from './agent-credential.js';
import { CredentialStore } from './credentials-store.js';
import { parseBearer } from '../core/credentials/token.js';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

describe('agentCredential', () => {
  it('issues one credential when several hosts start at once, in this process and in others', async () => {
    const home = mkdtempSync(join(tmpdir(), 'oracle-agent-cred-'));
    homes.push(home);
    // Other processes racing this one (the way three MCP servers of one editor start).
    const script = `import(${JSON.stringify(new URL('./agent-credential.ts', import.meta.url).href)}).then((m) => m.agentCredential(${JSON.stringify(home)}, 'mcp')).then((t) => process.stdout.write(t));`;
    const child = () =>
      new Promise<string>((resolve, reject) => {
        const p = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        p.stdout.on('data', (b: Buffer) => (out += b.toString()));
        p.on('error', reject);
        p.on('close', () => {
          resolve(out);
        });
      });
    const tokens = await Promise.all([child(), child(), agentCredential(home, 'mcp'), agentCredential(home, 'mcp')]);
    expect(new Set(tokens).size).toBe(1);
    const store = CredentialStore.open(join(home, 'data'));
    expect(store.list('ag').filter((c) => c.name === 'mcp' && c.revoked_at === null)).toHaveLength(1);
    const parsed = parseBearer(`Bearer ${tokens[0]}`);
    if (parsed === undefined) throw new Error('not a token');
    expect(await store.verify(parsed)).toMatchObject({ name: 'mcp' });
  }, 30_000);
});
