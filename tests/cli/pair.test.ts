import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { phoneOrigins } from '../../server/cli/pair.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { ORACLE_BIN } from './run-oracle.js';

/**
 * `oracle pair` against a gate that listens on loopback only (no `--lan`): it must not send the
 * person to a 127.0.0.1 address "on the phone", which no phone can reach. It says the gate listens
 * only on this machine and that a phone needs `oracle serve --lan`, and still opens the pairing
 * for a browser on this machine. The built command, until its first screen is printed.
 */
describe('oracle pair with a loopback-only gate', () => {
  let tree: TempTree;
  let running: Running;
  let home = '';

  beforeAll(async () => {
    tree = tempTree('oracle-cli-pair-');
    home = tree.dir('home');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, 'egress:\n  allow: [{ host: "127.0.0.1:9", why: never reached }]\n');
    running = await startServer({ home, policy, port: 0 });
  });
  afterAll(async () => {
    await running.close();
    tree.dispose();
  });

  /** Runs `oracle pair ARGS` until `until` is in its output (it then waits for a phone), and stops it. */
  const firstScreen = (args: readonly string[], until: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [ORACLE_BIN, 'pair', '--home', home, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      const timer = setTimeout(() => {
        child.kill('SIGTERM');
        reject(new Error(`no \`${until}\` in: ${out}`));
      }, 20_000);
      const take = (b: Buffer) => {
        out += b.toString('utf8');
        if (out.includes(until)) {
          clearTimeout(timer);
          child.kill('SIGTERM');
          resolve(out);
        }
      };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      child.on('error', reject);
    });

  it('--typed: says the gate is on this machine only, names `oracle serve --lan`, and never says "on the phone open" a loopback address', async () => {
    const out = await firstScreen(['--typed'], 'and type the code');
    expect(out).toContain(`the gate listens only on this machine (${running.url}), which a phone cannot reach: to pair a phone, stop the gate and start it with \`oracle serve --lan\``);
    expect(out).toContain(`in a browser on this machine open ${running.url} and type the code`);
    expect(out).not.toContain('on the phone open');
    expect(out).toMatch(/pairing code: \d{8}/u);
  });

  it('QR mode: says the same before the QR, and points to `--typed` for a browser here', async () => {
    const out = await firstScreen([], 'pairing code:');
    expect(out).toContain('the gate listens only on this machine');
    expect(out).toContain('`oracle serve --lan`');
    expect(out).toContain('(for that, `oracle pair --typed`)');
    expect(out.indexOf('the gate listens only on this machine')).toBeLessThan(out.indexOf('pairing code:'));
  });

  it('a LAN gate: the phone is sent to its LAN addresses, never to the loopback one', () => {
    expect(phoneOrigins(['https://box.local:8443', 'https://192.168.1.5:8443', 'https://127.0.0.1:8443'])).toEqual(['https://box.local:8443', 'https://192.168.1.5:8443']);
    expect(phoneOrigins(['https://127.0.0.1:8443', 'https://localhost:8443', 'https://[::1]:8443', 'not a url'])).toEqual([]);
  });
});
