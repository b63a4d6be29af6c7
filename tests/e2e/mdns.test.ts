import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notRootOnLinux, skipping } from '../fixtures/privileges.js';
import { REPO } from '../arch/source-files.js';

const ip = (...args: string[]) => spawnSync('ip', args, { encoding: 'utf8' });

/**
 * Real mDNS across two network namespaces joined by a veth pair (SPEC §9): the advertisement
 * carries the port and a short key hash, and nothing else.
 */
describe.skipIf(skipping('mDNS discovery across network namespaces', notRootOnLinux()))('mDNS discovery', () => {
  const tag = String(process.pid % 10_000);
  const a = `oracle-a-${tag}`;
  const b = `oracle-b-${tag}`;
  beforeAll(() => {
    for (const cmd of [
      ['netns', 'add', a],
      ['netns', 'add', b],
      ['link', 'add', `va${tag}`, 'type', 'veth', 'peer', 'name', `vb${tag}`],
      ['link', 'set', `va${tag}`, 'netns', a],
      ['link', 'set', `vb${tag}`, 'netns', b],
      ['-n', a, 'addr', 'add', '10.77.0.1/24', 'dev', `va${tag}`],
      ['-n', b, 'addr', 'add', '10.77.0.2/24', 'dev', `vb${tag}`],
      ['-n', a, 'link', 'set', `va${tag}`, 'up'],
      ['-n', b, 'link', 'set', `vb${tag}`, 'up'],
      ['-n', a, 'link', 'set', 'lo', 'up'],
      ['-n', b, 'link', 'set', 'lo', 'up'],
      ['-n', a, 'route', 'add', '224.0.0.0/4', 'dev', `va${tag}`],
      ['-n', b, 'route', 'add', '224.0.0.0/4', 'dev', `vb${tag}`],
    ]) {
      const r = ip(...cmd);
      if (r.status !== 0) throw new Error(`ip ${cmd.join(' ')}: ${r.stderr}`);
    }
  });
  afterAll(() => {
    ip('netns', 'del', a);
    ip('netns', 'del', b);
  });

  it('advertises _oracle._tcp with the port and a short key hash to another host on the LAN', () => {
    const advertiser = spawn('ip', ['netns', 'exec', a, process.execPath, '--import', 'tsx', join(REPO, 'tests/e2e/mdns-advertise.ts'), '8443', '0123456789abcdef'], { stdio: ['ignore', 'pipe', 'pipe'], cwd: REPO });
    try {
      const browse = spawnSync('ip', ['netns', 'exec', b, process.execPath, '--import', 'tsx', join(REPO, 'tests/e2e/mdns-browse.ts')], { encoding: 'utf8', timeout: 20_000, cwd: REPO });
      const found = JSON.parse(browse.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
      expect(found).toMatchObject({ found: true, name: 'ORACLE on testbox', host: 'testbox.local', port: 8443, txt: { v: '1', k: '0123456789abcdef' } });
      expect(Object.keys(found['txt'] as object).sort()).toEqual(['k', 'v']);
    } finally {
      advertiser.kill('SIGKILL');
    }
  });
});
