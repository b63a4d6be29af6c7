import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemdUnit, unitWord } from '../../server/core/service/systemd-unit.js';
import { localGate } from '../../server/adapters/local-client.js';
import { startUserManager, systemdUnavailable, type UserManager } from '../fixtures/systemd-user.js';
import { skipping } from '../fixtures/privileges.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { ORACLE_BIN, runOracle } from './run-oracle.js';

const until = async <T>(probe: () => T | undefined, ms: number): Promise<T | undefined> => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    const value = probe();
    if (value !== undefined) return value;
  }
  return probe();
};

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        resolve(typeof address === 'object' && address !== null ? address.port : 0);
      });
    });
  });

describe('the systemd unit `oracle service install` writes', () => {
  it('quotes every word as systemd reads it, and refuses what a unit cannot hold', () => {
    expect(unitWord('/home/a b/%h/$HOME/"q"\\')).toBe('"/home/a b/%%h/$$HOME/\\"q\\"\\\\"');
    expect(() => unitWord('a\nExecStartPre=/bin/evil')).toThrow(/control character/u);
  });

  it.skipIf(process.platform !== 'linux' || spawnSync('systemd-analyze', ['--version']).status !== 0)('passes `systemd-analyze verify`', () => {
    const tree = tempTree('oracle-unit-verify-');
    try {
      const runtime = tree.dir('run');
      chmodSync(runtime, 0o700);
      const unit = join(tree.dir('units'), 'oracle.service');
      writeFileSync(unit, systemdUnit({ node: process.execPath, entry: '/opt/oracle/dist/server/cli/oracle.js', home: '/home/a b/.oracle', path: '/usr/bin:/bin', port: 8443, lan: true }));
      const verified = spawnSync('systemd-analyze', ['verify', '--user', unit], { env: { ...process.env, XDG_RUNTIME_DIR: runtime }, encoding: 'utf8' });
      expect(verified.status, verified.stderr).toBe(0);
      expect(verified.stderr).toBe('');
    } finally {
      tree.dispose();
    }
  });
});

/**
 * `oracle service status | uninstall` where no systemd user manager answers (a container, an SSH
 * session without one: here an empty XDG_RUNTIME_DIR and no session bus). systemctl fails with
 * "Failed to connect to bus"; status says it could not ask instead of a state, and uninstall
 * removes the unit file, says systemctl failed and exits 1 instead of "stopped and disabled".
 */
describe.skipIf(process.platform !== 'linux' || spawnSync('systemctl', ['--version']).status !== 0)('oracle service with no systemd user manager to ask', () => {
  let tree: TempTree;
  let env: NodeJS.ProcessEnv;
  let unit = '';

  beforeAll(() => {
    tree = tempTree('oracle-service-nobus-');
    const runtime = tree.dir('xdg-run');
    chmodSync(runtime, 0o700);
    env = { ...process.env, HOME: tree.dir('user'), XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: tree.dir('config') };
    delete env['DBUS_SESSION_BUS_ADDRESS'];
    unit = tree.file('config/systemd/user/oracle.service', systemdUnit({ node: process.execPath, entry: '/opt/oracle/dist/server/cli/oracle.js', home: tree.dir('home'), path: '/usr/bin:/bin', port: 8443 }));
  });
  afterAll(() => {
    tree.dispose();
  });

  it('status says the manager could not be asked, and why, with exit 4 (status unknown)', async () => {
    const status = await runOracle(['service', 'status', '--home', tree.dir('home')], '', env);
    expect(status.code, status.stdout + status.stderr).toBe(4);
    expect(status.stdout).toMatch(/^service: unknown: could not ask the systemd user manager \(Failed to connect to bus[^\n]*\)/mu);
    expect(status.stdout).not.toMatch(/^service: Failed/mu);
  });

  it('status asks the gate itself: one that is stopped (SIGSTOP) is said not to answer, not to run (red team, session 33)', async () => {
    const home = tree.dir('home-stopped');
    const serve = spawn(process.execPath, [ORACLE_BIN, 'serve', '--port', '0', '--home', home], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        serve.stdout.on('data', (b: Buffer) => {
          out += b.toString();
          if (/listening on https:/u.test(out)) resolve();
        });
        serve.on('exit', (code) => {
          reject(new Error(`serve exited ${String(code)}: ${out}`));
        });
      });
      const answering = await runOracle(['service', 'status', '--home', home], '', env);
      expect(answering.stdout).toMatch(/^gate: running at https:\/\/127\.0\.0\.1:\d+ \(pid \d+\), answering, mode normal$/mu);
      serve.kill('SIGSTOP');
      const stopped = await runOracle(['service', 'status', '--home', home], '', env);
      expect(stopped.code, 'LSB 1: a process holds the home but does not answer').toBe(1);
      expect(stopped.stdout).toMatch(/^gate: process \d+ holds the home but https:\/\/127\.0\.0\.1:\d+ did not answer its health check within 3 s \(.*\): stopped or hung$/mu);
      expect(stopped.stdout).not.toContain('answering');
    } finally {
      serve.kill('SIGKILL');
    }
  }, 60_000);

  it('uninstall removes the unit file but reports that systemctl failed, exit 1', async () => {
    const removed = await runOracle(['service', 'uninstall', '--home', tree.dir('home')], '', env);
    expect(removed.code, removed.stdout + removed.stderr).toBe(1);
    expect(removed.stdout).toContain(`removed ${unit}, but systemctl could not stop and disable the service (`);
    expect(removed.stdout).toContain('Failed to connect to bus');
    expect(removed.stdout).not.toContain('stopped and disabled');
    expect(existsSync(unit)).toBe(false);
  });
});

/**
 * `oracle service install | status | uninstall` against a real systemd user manager: the gate
 * starts, answers, comes back after it is killed, comes back after the manager itself restarts (a
 * new login or a reboot), hands out a desktop login, and is gone after uninstall.
 */
describe.skipIf(skipping('oracle service with a real systemd user manager', systemdUnavailable()))('oracle service with a real systemd user manager', () => {
  let tree: TempTree;
  let manager: UserManager;
  let env: NodeJS.ProcessEnv;
  let home = '';
  let port = 0;

  beforeAll(async () => {
    tree = tempTree('oracle-service-');
    const runtime = tree.dir('xdg-run');
    chmodSync(runtime, 0o700);
    // A home whose path needs quoting in a unit: a space and a specifier character.
    home = join(tree.root, 'my home %n');
    mkdirSync(home);
    port = await freePort();
    env = { ...process.env, HOME: tree.dir('user'), XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: tree.dir('config') };
    manager = await startUserManager(env);
  }, 30_000);
  afterAll(async () => {
    await manager.stop();
    tree.dispose();
  });

  const pidOf = () => localGate(home)?.pid;

  it('installs, starts and enables the gate; it comes back after a crash and after the manager restarts', async () => {
    const installed = await runOracle(['service', 'install', '--home', home, '--port', String(port)], '', env);
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    expect(installed.stdout).toContain(`ORACLE runs as your systemd user service at https://127.0.0.1:${String(port)}`);
    expect(manager.systemctl('is-enabled', 'oracle.service').out).toBe('enabled');
    // systemd itself read the quoted home back as one argument.
    expect(manager.systemctl('show', '--property=ExecStart', 'oracle.service').out).toContain(`--home ${home} `);

    const first = pidOf();
    expect(first).toBeDefined();
    process.kill(first ?? 0, 'SIGKILL');
    const second = await until(() => {
      const pid = pidOf();
      return pid !== undefined && pid !== first ? pid : undefined;
    }, 20_000);
    expect(second, 'systemd restarts the gate after it was killed').toBeDefined();
    expect(Number(manager.systemctl('show', '--property=NRestarts', '--value', 'oracle.service').out)).toBeGreaterThanOrEqual(1);

    // A reboot, as far as the user's services go: the manager stops (and the gate with it) and a
    // new one starts the enabled gate by itself.
    await manager.stop();
    expect(await until(() => (pidOf() === undefined ? true : undefined), 10_000)).toBe(true);
    manager = await startUserManager(env);
    expect(await until(pidOf, 20_000), 'the enabled gate starts with the manager').toBeDefined();

    const status = await runOracle(['service', 'status', '--home', home], '', env);
    expect(status.code, status.stdout).toBe(0);
    expect(status.stdout).toMatch(/service: active, enabled/u);
    expect(status.stdout).toContain(`gate: running at https://127.0.0.1:${String(port)}`);
  }, 90_000);

  it('hands out a one-time desktop login for the service’s gate', async () => {
    const printed = await runOracle(['desktop', '--home', home], '', env);
    expect(printed.code, printed.stdout).toBe(0);
    const url = /https:\/\/\S+login\?code=\S+/u.exec(printed.stdout)?.[0] ?? '';
    const ca = readFileSync(join(home, 'certs', 'ca.crt'), 'utf8');
    const get = () =>
      new Promise<number>((resolve, reject) => {
        request(url, { ca }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on('error', reject)
          .end();
      });
    expect(await get()).toBe(200);
    // The code works once.
    expect(await get()).not.toBe(200);
  }, 30_000);

  it('uninstalls: the gate stops, the unit is gone, status says so', async () => {
    const removed = await runOracle(['service', 'uninstall', '--home', home], '', env);
    expect(removed.code, removed.stdout).toBe(0);
    expect(await until(() => (pidOf() === undefined ? true : undefined), 15_000)).toBe(true);
    const status = await runOracle(['service', 'status', '--home', home], '', env);
    expect(status.code).toBe(3);
    expect(status.stdout).toContain('not installed');
  }, 30_000);
});
