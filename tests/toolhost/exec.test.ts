import { prepareAction } from '../../server/toolhost/types.js';
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate } from '../../server/core/decide/decide.js';
import type { Runtime } from '../../server/app/runtime.js';
import { batBadButRefusal } from '../../server/toolhost/batbadbut.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { processesWith, runtimeFor } from './runtime-fixture.js';

/**
 * exec.run through the real toolhost (SPEC §6): real processes, real bubblewrap where this host
 * has it (CI installs it), real loopback sockets.
 */
const procs = (marker: string) => processesWith(marker, (p) => readFileSync(p, 'utf8'), () => readdirSync('/proc'));

describe('exec.run in the toolhost', () => {
  let tree: TempTree;
  let runtime: Runtime;
  let decoyDir = '';
  let server: Server;
  let connections = 0;
  let port = 0;

  beforeAll(async () => {
    tree = tempTree('oracle-exec-');
    tree.dir('projects/app');
    const real = tree.file('bin/real/tool1', '#!/bin/sh\necho real tool\n');
    chmodSync(real, 0o755);
    decoyDir = tree.dir('bin/decoy');
    runtime = await runtimeFor(
      tree,
      `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\n` +
        'programs:\n  git: { subcommands: { allow: [add, switch] } }\n  env: { allow_args_matching: ["*"] }\n  sh: { allow_args_matching: ["-c *"] }\n  tool1: {}\n  node: { allow_args_matching: ["-e *"] }\n' +
        'tiers:\n  - { tool: exec.run, program: tool1, tier: T1 }\n',
      { path: `${decoyDir}:${tree.root}/bin/real:/usr/local/bin:/usr/bin:/bin`, extraEnv: { ORACLE_TEST_CANARY: 'canary-6f1c2e' } },
    );
    server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;
  });
  afterAll(async () => {
    await runtime.close();
    server.close();
    tree.dispose();
  });

  const runExec = (program: string, args: string[], timeout?: number) =>
    runtime.run({ tool: 'exec.run', args: { program, args, cwd: `${tree.root}/projects/app`, ...(timeout === undefined ? {} : { timeout }) } });

  it('gives a job in a folder of a git work tree the whole work tree, and nothing beside it', async () => {
    tree.dir('projects/mono/.git');
    tree.file('projects/mono/tests/t.txt', 'root tests\n');
    tree.dir('projects/mono/packages/a');
    tree.file('projects/other/secret.txt', 'another project\n');
    // (Paths built in the script: an argument naming a place outside the scopes would need a person.)
    const look = (up: number, then: string[]): string => `const p=require('path'),fs=require('fs');const at=p.resolve(process.cwd(),...Array(${String(up)}).fill('.'+'.'),...${JSON.stringify(then)});try{console.log(fs.statSync(at).isDirectory()?fs.readdirSync(at).join(','):fs.readFileSync(at,'utf8').trim())}catch(e){console.log(e.code)}`;
    const seen = async (cwd: string, up: number, then: string[]): Promise<unknown> => (await runtime.run({ tool: 'exec.run', args: { program: 'node', args: ['-e', look(up, then)], cwd: `${tree.root}/projects/${cwd}` } })).stdout;
    expect(await seen('mono/packages/a', 2, ['tests', 't.txt'])).toBe('root tests\n');
    expect(await seen('mono/packages/a', 3, [])).toBe('mono\n');
    expect(await seen('mono/packages/a', 3, ['other', 'secret.txt'])).toBe('ENOENT\n');
    // Outside a work tree, the folder itself and nothing above it.
    expect(await seen('app', 1, [])).toBe('app\n');
  });

  it('lets that job write its own folder only, never the rest of the work tree the decision did not cover; git gets the work tree as from its top', async () => {
    const mono = `${tree.root}/projects/wt`;
    tree.file('projects/wt/package.json', '{}\n');
    tree.dir('projects/wt/packages/a');
    tree.dir('projects/wt/packages/b');
    expect(spawnSync('git', ['init', '-q', mono]).status).toBe(0);
    // Writable to anyone on the host: only the sandbox's binds can stop the job (a root gate runs it as its own account).
    expect(spawnSync('chmod', ['-R', 'a+rwX', mono]).status).toBe(0);
    const write = (rel: string): string => `const fs=require('fs'),p=require('path');try{fs.writeFileSync(p.resolve(process.cwd(),...${JSON.stringify(rel.split('/'))}.map(s=>s==='UP'?'.'+'.':s)),'x');console.log('wrote')}catch(e){console.log(e.code)}`;
    const run = async (rel: string): Promise<unknown> => (await runtime.run({ tool: 'exec.run', args: { program: 'node', args: ['-e', write(rel)], cwd: `${mono}/packages/a` } })).stdout;
    expect(await run('made.txt')).toBe('wrote\n');
    expect(await run('UP/UP/package.json')).toBe('EROFS\n');
    expect(await run('UP/b/index.js')).toBe('EROFS\n');
    expect(readFileSync(`${mono}/package.json`, 'utf8')).toBe('{}\n');
    // git writes the repository's own .git from the package's folder.
    const added = await runtime.run({ tool: 'exec.run', args: { program: 'git', args: ['add', 'made.txt'], cwd: `${mono}/packages/a` } });
    expect(added, JSON.stringify(added)).toMatchObject({ exit_code: 0 });
    expect(spawnSync('git', ['-C', mono, 'ls-files'], { encoding: 'utf8' }).stdout).toBe('packages/a/made.txt\n');
    // A switch from there changes the whole work tree, as it would from the top, never half of it.
    const g = (...a: string[]) => spawnSync('git', ['-C', mono, '-c', 'user.name=t', '-c', 'user.email=t@e', ...a], { encoding: 'utf8' });
    writeFileSync(`${mono}/packages/b/b.txt`, 'main\n');
    expect(g('add', '-A').status).toBe(0);
    expect(g('commit', '-qm', 'main').status).toBe(0);
    expect(g('switch', '-qc', 'feat').status).toBe(0);
    writeFileSync(`${mono}/packages/b/b.txt`, 'feat\n');
    expect(g('commit', '-qam', 'feat').status).toBe(0);
    expect(g('switch', '-q', '-').status).toBe(0);
    expect(spawnSync('chmod', ['-R', 'a+rwX', mono]).status).toBe(0);
    const switched = await runtime.run({ tool: 'exec.run', args: { program: 'git', args: ['switch', 'feat'], cwd: `${mono}/packages/a` } });
    expect(switched, JSON.stringify(switched)).toMatchObject({ exit_code: 0 });
    expect(readFileSync(`${mono}/packages/b/b.txt`, 'utf8')).toBe('feat\n');
    expect(g('status', '--porcelain').stdout).toBe('');
  });

  it('reports the isolation it really has', () => {
    // CI installs bubblewrap; a host without it must say so rather than pretend.
    expect(runtime.toolhost.sandbox.kind).toBe('bubblewrap');
  });

  it('builds the environment from nothing: a secret in the gate’s environment never reaches a child', async () => {
    process.env['ORACLE_TEST_CANARY'] = 'canary-6f1c2e';
    const result = await runExec('env', []);
    expect(result.executed).toBe(true);
    expect(result.exit_code).toBe(0);
    expect(result.stdout).toContain('PATH=/usr/local/bin:/usr/bin:/bin');
    expect(result.stdout).not.toContain('canary-6f1c2e');
    expect(result.stdout).not.toContain('ORACLE_TEST_CANARY');
  });

  it('runs the program pinned at start, not a decoy put earlier on PATH afterwards', async () => {
    const decoy = `${decoyDir}/tool1`;
    writeFileSync(decoy, '#!/bin/sh\necho DECOY\n');
    chmodSync(decoy, 0o755);
    const result = await runExec('tool1', []);
    expect(result.args?.['program_path']).toBe(`${tree.root}/bin/real/tool1`);
    expect(result.stdout).toBe('real tool\n');
  });

  it('says the program never ran when the sandbox could not be set up, not that it failed (its pinned file gone)', async () => {
    const real = `${tree.root}/bin/real/tool1`;
    renameSync(real, `${real}.away`);
    try {
      const r = await runExec('tool1', []);
      expect(r).toMatchObject({ decision: 'allow', error: { code: 'SPAWN_FAILED' } });
      expect(r.error?.message).toMatch(/^the program did not start in its sandbox: bwrap: Can't find source path .*tool1/u);
    } finally {
      renameSync(`${real}.away`, real);
    }
    // A program that ran and failed is still its own exit status; it cannot write on bubblewrap's
    // status descriptor (which would let it pass for one that never started).
    expect(await runExec('sh', ['-c', 'exit 3'])).toMatchObject({ exit_code: 3, error: { code: 'EXIT_NONZERO' } });
    const forged = await runExec('sh', ['-c', 'echo \'{ "child-pid": 1 }\' >&3 || exit 4']);
    expect(forged).toMatchObject({ exit_code: 4, error: { code: 'EXIT_NONZERO' } });
    expect(forged.stderr).toMatch(/Bad file descriptor/u);
  });

  it('kills the whole process tree on timeout, grandchildren included', async () => {
    const marker = `sleep 313.${String(process.pid)}`;
    const result = await runExec('sh', ['-c', `${marker} & ${marker} & (setsid ${marker} &) ; wait`], 1);
    expect(result.error?.code).toBe('TIMEOUT');
    await new Promise((r) => setTimeout(r, 300));
    expect(procs(marker)).toEqual([]);
  });

  it('gives a child no network: it cannot reach a listener on the host’s loopback', async () => {
    const script = `const s=require('net').connect(${String(port)},'127.0.0.1');s.on('connect',()=>{console.log('CONNECTED');process.exit(0)});s.on('error',e=>{console.log(e.code);process.exit(3)})`;
    const result = await runExec('node', ['-e', script]);
    expect(result.stdout).not.toContain('CONNECTED');
    expect(result.exit_code).toBe(3);
    expect(connections).toBe(0);
  });

  it('keeps jobs apart: a job cannot read a sibling job’s directory, even when the gate lets it try', async () => {
    const jobsRoot = `${runtime.gate.home}/data/jobs`;
    const slow = runExec('sh', ['-c', 'cd; echo secret-of-a > a.txt; sleep 3']);
    let sibling: string | undefined;
    for (let i = 0; i < 50 && sibling === undefined; i++) {
      await new Promise((r) => setTimeout(r, 50));
      sibling = readdirSync(jobsRoot).find((d) => /^[0-9a-f]{32}$/u.test(d));
    }
    expect(sibling).toBeDefined();
    // First line: the gate denies it (the job root is inside ORACLE's home).
    const script = `cat ${jobsRoot}/${sibling ?? ''}/a.txt; ls ${jobsRoot}`;
    const judged = evaluate({ tool: 'exec.run', args: { program: 'sh', args: ['-c', script], cwd: `${tree.root}/projects/app` } }, runtime.gate.context);
    expect(judged.decision).toMatchObject({ decision: 'deny', code: 'PATH_DENY_ALWAYS' });
    // Second line: even if the gate had let it through, the sandbox shows it nothing.
    const allow = { decision: 'allow', tier: 'T1', approver: null, code: null, rule: 'test', reasons: [] } as const;
    const peek = await runtime.toolhost.boundary.execute(prepareAction('exec.run', judged.args ?? {}, { actionId: 'test-peek', paths: judged.paths, decision: allow }));
    expect(peek.result.stdout).not.toContain('secret-of-a');
    expect(peek.result.stderr).toContain('No such file or directory');
    await slow;
    expect(readdirSync(jobsRoot).filter((d) => /^[0-9a-f]{32}$/u.test(d))).toEqual([]);
  });

  it('caps output', async () => {
    const result = await runExec('sh', ['-c', 'yes xxxxxxxxxxxxxxx | head -c 3000000']);
    expect(result.truncated).toBe(true);
    expect(result.stdout?.length).toBe(1024 * 1024);
  });
});

describe('BatBadBut (pure, every OS)', () => {
  it.each([
    ['a&calc.exe'],
    ['"quoted"'],
    ['%PATH%'],
    ['!var!'],
    ['a|b'],
    ['a>b'],
    ['a<b'],
    ['^'],
    ['(x)'],
    ['trailing\\'],
    ['trailing space '],
    ['line\r\nbreak'],
  ])('refuses %j for a .cmd target', (arg) => {
    expect(batBadButRefusal('C:/tools/npm.cmd', ['run', arg])).toContain('cmd.exe');
    expect(batBadButRefusal('C:/tools/build.BAT', [arg])).toBeDefined();
  });

  it('lets plain arguments through, and never judges non-batch targets', () => {
    expect(batBadButRefusal('C:/tools/npm.cmd', ['run', 'test', '--', 'a-b_c.d/e:f'])).toBeUndefined();
    expect(batBadButRefusal('/usr/bin/npm', ['a&b'])).toBeUndefined();
  });
});
