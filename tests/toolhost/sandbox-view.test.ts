import { spawnSync } from 'node:child_process';
import { prepareAction } from '../../server/toolhost/types.js';
import { chmodSync, renameSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate } from '../../server/core/decide/decide.js';
import type { Runtime } from '../../server/app/runtime.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from './runtime-fixture.js';
import { MAX_SET_ASIDE } from '../../server/toolhost/planted.js';
import { judgedListings, sandboxView } from '../../server/toolhost/sandbox-masks.js';
import { RACY_MS } from '../../server/adapters/agent/dir-listings.js';
import { cannotMountTmpfs, mountTmpfs, skipping, unmount } from '../fixtures/privileges.js';

/**
 * A job sees its working directory's tree minus everything the gate would refuse there: deny_always,
 * excludes, ORACLE's own home, and nested read-only roots stay read-only (review finding).
 */
describe('what a sandboxed job can see', () => {
  let tree: TempTree;
  let runtime: Runtime;
  let app = '';
  beforeAll(async () => {
    tree = tempTree('oracle-view-');
    app = tree.dir('projects/app');
    tree.file('projects/app/.env', 'DB_PASSWORD=plain');
    tree.file('projects/app/src/.env.local', 'TOKEN=x');
    tree.file('projects/app/.git/hooks/pre-commit', '#!/bin/sh\n');
    tree.file('projects/app/secret-data/x.txt', 'excluded');
    tree.file('projects/app/vendored-ro/lib.txt', 'read only');
    tree.file('projects/app/ok.txt', 'visible');
    tree.file('projects/app/dist/.env', 'DIST_SECRET=1');
    tree.file('projects/app/build/.env', 'BUILD_SECRET=1');
    tree.file('projects/other/.env', 'OTHER=1');
    tree.file('userhome/.ssh/id_ed25519', 'KEY');
    const tool = tree.file('userhome/bin/runtests', '#!/bin/sh\nls -a "$1" 2>&1; cat "$2" 2>&1\n');
    chmodSync(tool, 0o755);
    runtime = await runtimeFor(
      tree,
      `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw, exclude: [secret-data] }, { path: "${app}/vendored-ro", mode: ro }] }\n` +
        'deny_always: [.env, "*.env.*", .git, "**/.claude/settings.local.json", "**/.mcp.json"]\nprograms:\n  sh: { allow_args_matching: ["-c *"] }\n  node: { allow_args_matching: ["--test"] }\n  runtests: {}\n' +
        'tiers:\n  - { tool: exec.run, program: runtests, tier: T1 }\n',
      { path: `${tree.root}/userhome/bin:/usr/bin:/bin` },
    );
  });
  afterAll(async () => {
    await runtime.close();
    tree.dispose();
  });

  const sh = (script: string) => runtime.run({ tool: 'exec.run', args: { program: 'sh', args: ['-c', script], cwd: app } });

  it('hides deny_always files and folders, excludes and sibling trees; keeps nested read-only roots read-only', async () => {
    // The gate refuses a script that names .env, and sends one that builds names at run time to
    // a person. Played through as if approved, the sandbox is what must hold.
    expect((await sh('cat .env')).code).toBe('PATH_DENY_ALWAYS');
    const script = 'e=.e; g=.g; s=secret-; cat ${e}nv; cat src/${e}nv.local; cat dist/${e}nv build/${e}nv; ls -a ${g}it; cat ${s}data/x.txt; cat ok.txt; v=vendored; echo hacked > ${v}-ro/lib.txt; ls ..';
    expect((await sh(script)).decision).toBe('needs-approval');
    const judged = evaluate({ tool: 'exec.run', args: { program: 'sh', args: ['-c', script], cwd: app } }, runtime.gate.context);
    const executed = await runtime.toolhost.boundary.execute(prepareAction('exec.run', judged.args ?? {}, { actionId: 'v', paths: judged.paths, decision: { decision: 'allow', tier: 'T1', approver: null, code: null, rule: 'test', reasons: [] } }));
    const r = executed.result;
    expect(r.stdout).toContain('visible');
    expect(r.stdout).not.toContain('DB_PASSWORD');
    expect(r.stdout).not.toContain('TOKEN=x');
    // Build output is walked for masks too (red team, session 33).
    expect(r.stdout).not.toContain('DIST_SECRET');
    expect(r.stdout).not.toContain('BUILD_SECRET');
    expect(r.stdout).not.toContain('pre-commit');
    expect(r.stdout).not.toContain('excluded');
    expect(r.stdout?.split('\n')).not.toContain('other');
    expect(r.stderr).toMatch(/Read-only file system/u);
    expect(readFileSync(`${app}/vendored-ro/lib.txt`, 'utf8')).toBe('read only');
  });

  it('runs a job while a nested read-only root is missing (an earlier job moved it away)', async () => {
    renameSync(`${app}/vendored-ro`, `${app}/vendored-moved`);
    try {
      const r = await runtime.run({ tool: 'exec.run', args: { program: 'sh', args: ['-c', 'cat ok.txt'], cwd: app } });
      expect(r).toMatchObject({ executed: true, exit_code: 0, stdout: 'visible' });
    } finally {
      renameSync(`${app}/vendored-moved`, `${app}/vendored-ro`);
    }
  });

  it('sets aside what a job made that no agent may write, into ORACLE\'s trash, reports and audits it', async () => {
    // Red team, session 33: a T1 test run wrote Claude Code settings with the hooks off, an MCP
    // server list and a nested repository's config; the masks hide only what exists at the start.
    // A folder the job may write whoever it runs as (a root gate's jobs run as its job account).
    const work = tree.dir('projects/app/work');
    chmodSync(work, 0o777);
    tree.file('projects/app/work/plant.test.js', [
      "const { mkdirSync, writeFileSync } = require('node:fs');",
      "mkdirSync('.claude'); mkdirSync('sub/.git', { recursive: true });",
      "writeFileSync('.claude/settings.local.json', '{\"disableAllHooks\":true}');",
      "writeFileSync('.mcp.json', '{}');",
      "writeFileSync('sub/.git/config', '[core]\\n');",
      "writeFileSync('made.txt', 'made');",
      "require('node:test')('plants', () => {});",
    ].join('\n'));
    const ran = await runtime.run({ tool: 'exec.run', args: { program: 'node', args: ['--test'], cwd: work } });
    expect(ran).toMatchObject({ decision: 'allow', tier: 'T1', executed: true, exit_code: 0 });
    const setAside = ran.set_aside ?? [];
    expect(setAside.map((s) => s.path).sort()).toEqual([`${work}/.claude/settings.local.json`, `${work}/.mcp.json`, `${work}/sub/.git`]);
    for (const gone of ['.claude/settings.local.json', '.mcp.json', 'sub/.git']) expect(existsSync(`${work}/${gone}`), gone).toBe(false);
    expect(readFileSync(`${work}/made.txt`, 'utf8')).toBe('made');
    // Kept in ORACLE's trash for a person to move back by hand (an undo would write a name the
    // policy denies to every agent, which the gate refuses).
    const kept = setAside.find((s) => s.path.endsWith('.mcp.json'));
    expect(kept?.trash.startsWith(join(runtime.gate.home, 'data', 'undo'))).toBe(true);
    expect(readFileSync(kept?.trash ?? '', 'utf8')).toBe('{}');
    const record = auditRecords(runtime.gate.home).find((r) => r['kind'] === 'job.planted' && r['action_id'] === ran.action_id);
    expect(record).toMatchObject({ outcome: 'set-aside', detail: { set_aside: expect.arrayContaining([expect.objectContaining({ path: `${work}/.mcp.json`, trash: kept?.trash })]) as unknown } });
  });

  it('sets aside a planted link, and a name planted where the person\'s own file was, never the person\'s file (round 2)', async () => {
    const work = tree.dir('projects/app/work2');
    tree.file('projects/app/work2/.claude/settings.local.json', '{"hooks":"the person\'s"}');
    tree.file('projects/app/work2/sub/.env', 'PERSON=1');
    tree.file('projects/app/work2/m.json', '{"mcpServers":{}}');
    spawnSync('chmod', ['-R', 'a+rwX', work]);
    tree.file('projects/app/work2/swap.test.js', [
      "const { mkdirSync, renameSync, symlinkSync, writeFileSync } = require('node:fs');",
      "symlinkSync('m.json', '.mcp.json');",
      "renameSync('.claude', '.claude-old'); mkdirSync('.claude');",
      "writeFileSync('.claude/settings.local.json', '{\"disableAllHooks\":true}');",
      "mkdirSync('sub2'); renameSync('sub', 'sub2/sub');",
      "require('node:test')('swaps', () => {});",
    ].join('\n'));
    spawnSync('chmod', ['a+r', `${work}/swap.test.js`]);
    const ran = await runtime.run({ tool: 'exec.run', args: { program: 'node', args: ['--test'], cwd: work } });
    expect(ran).toMatchObject({ decision: 'allow', executed: true, exit_code: 0 });
    expect((ran.set_aside ?? []).map((s) => s.path).sort()).toEqual([`${work}/.claude/settings.local.json`, `${work}/.mcp.json`]);
    expect(existsSync(`${work}/.claude/settings.local.json`)).toBe(false);
    expect(existsSync(`${work}/.mcp.json`)).toBe(false);
    // The person's own files are where the job put them, untouched.
    expect(readFileSync(`${work}/sub2/sub/.env`, 'utf8')).toBe('PERSON=1');
    expect(readFileSync(`${work}/.claude-old/settings.local.json`, 'utf8')).toBe('{"hooks":"the person\'s"}');
  });

  it('sets aside at most MAX_SET_ASIDE names after one job and says what it left (round 3: thousands held the gate)', async () => {
    const work = tree.dir('projects/app/work3');
    chmodSync(work, 0o777);
    tree.file('projects/app/work3/many.test.js', [
      "const { mkdirSync, writeFileSync } = require('node:fs');",
      `for (let i = 0; i < ${String(MAX_SET_ASIDE + 50)}; i++) { mkdirSync('d' + i); writeFileSync('d' + i + '/.env', 'X=' + i); }`,
      "require('node:test')('many', () => {});",
    ].join('\n'));
    const ran = await runtime.run({ tool: 'exec.run', args: { program: 'node', args: ['--test'], cwd: work } });
    expect(ran).toMatchObject({ decision: 'allow', executed: true, exit_code: 0 });
    expect(ran.set_aside).toHaveLength(MAX_SET_ASIDE);
    expect(ran.set_aside_unchecked).toMatch(/still in .* for a person to look at: 50 more past the first 200/u);
    const record = auditRecords(runtime.gate.home).find((r) => r['kind'] === 'job.planted' && r['action_id'] === ran.action_id);
    expect(record).toMatchObject({ outcome: 'unchecked' });
  });

  it('masks a name written since the tree was judged, and sets aside one a job plants, while folders\' listings are kept (session 34)', async () => {
    // Listings are kept only for folders unchanged for RACY_MS; wait that out so the jobs below
    // take the kept path, and check that they do.
    const work = tree.dir('projects/app/work4');
    tree.file('projects/app/work4/sub/ok.txt', 'fine');
    spawnSync('chmod', ['-R', 'a+rwX', work]);
    await new Promise((r) => setTimeout(r, RACY_MS + 500));
    const listings = judgedListings(runtime.gate.context.gate);
    tree.file('projects/app/work4/first.test.js', "require('node:test')('nothing', () => {});");
    expect(await runtime.run({ tool: 'exec.run', args: { program: 'node', args: ['--test'], cwd: work } })).toMatchObject({ executed: true, exit_code: 0 });
    expect(listings.list(`${work}/sub`)).toBe(listings.list(`${work}/sub`));

    // Between two jobs: a secret is written into a kept folder, and the next job plants a name
    // in another kept folder and reads what it can.
    tree.file('projects/app/work4/sub/.env', 'WRITTEN_SINCE=1');
    tree.file('projects/app/work4/first.test.js', [
      "const { readFileSync, writeFileSync } = require('node:fs');",
      "let seen = 'masked'; try { seen = readFileSync('sub/' + '.e' + 'nv', 'utf8'); } catch {}",
      "writeFileSync('sub/.mcp.json', '{}');",
      "require('node:test')('reads', () => { console.log('SEEN', seen); });",
    ].join('\n'));
    const ran = await runtime.run({ tool: 'exec.run', args: { program: 'node', args: ['--test'], cwd: work } });
    expect(ran).toMatchObject({ decision: 'allow', executed: true, exit_code: 0 });
    expect(ran.stdout).toContain('SEEN masked');
    expect(ran.stdout).not.toContain('WRITTEN_SINCE');
    expect((ran.set_aside ?? []).map((s) => s.path)).toEqual([`${work}/sub/.mcp.json`]);
    expect(readFileSync(`${work}/sub/.env`, 'utf8')).toBe('WRITTEN_SINCE=1');
  });

  it('notices a mount put over a hidden name during a job, its folder\'s listing kept (review, session 34)', async (context) => {
    if (skipping('a mount over a hidden name', cannotMountTmpfs())) return context.skip();
    const work = tree.dir('projects/app/work5');
    tree.file('projects/app/work5/.git/HEAD', 'ref: refs/heads/main\n');
    tree.dir('projects/app/work5/signal');
    spawnSync('chmod', ['-R', 'a+rwX', work]);
    await new Promise((r) => setTimeout(r, RACY_MS + 500));
    // The job says it started in a folder of its own (work5's listing stays kept), then waits.
    const job = runtime.run({ tool: 'exec.run', args: { program: 'sh', args: ['-c', 'echo > signal/started; sleep 2'], cwd: work } });
    await expect.poll(() => existsSync(`${work}/signal/started`)).toBe(true);
    mountTmpfs(`${work}/.git`, '64k');
    try {
      const ran = await job;
      expect(ran).toMatchObject({ decision: 'allow', executed: true, exit_code: 0 });
      // What is at .git now is not what was there: a mount point cannot be moved aside, so a person is told.
      expect(ran.set_aside_unchecked).toContain(`${work}/.git`);
    } finally {
      unmount(`${work}/.git`);
    }
  });

  it('says why it cannot mask a tree too large to walk, and masks it within the limit', async () => {
    const work = tree.dir('projects/app/work6');
    for (let i = 0; i < 5; i += 1) tree.file(`projects/app/work6/d/f${String(i)}.ts`);
    tree.file('projects/app/work6/d/.env', 'X=1');
    const gate = runtime.gate.context.gate;
    expect(await sandboxView(gate, work, { gitVisible: false, limit: 6 })).toEqual({ incomplete: `there are more than 6 entries below \`${work}\`` });
    expect(await sandboxView(gate, work, { gitVisible: false, limit: 7 })).toEqual({ masks: [{ path: `${work}/d/.env`, kind: 'file' }], readOnly: [] });
    expect(await sandboxView(gate, `${work}/gone`, { gitVisible: false })).toEqual({ incomplete: `\`${work}/gone\` cannot be read (ENOENT)` });
  });

  it('binds a program from outside the system directories alone, never its folder or the home around it', async () => {
    const r = await runtime.run({ tool: 'exec.run', args: { program: 'runtests', args: ['.', 'ok.txt'], cwd: app } });
    expect(r.stdout).toContain('visible');
    const peek = await runtime.run({ tool: 'exec.run', args: { program: 'runtests', args: [`${tree.root}/userhome`, `${tree.root}/userhome/.ssh/id_ed25519`], cwd: app } });
    // The gate sends these paths to a person first (and no tier rule lowers that).
    expect(peek.decision).toBe('needs-approval');
    expect(existsSync(`${tree.root}/userhome/.ssh/id_ed25519`)).toBe(true);
    // Played through as approved, the program still sees nothing of the home it was installed in.
    const forced = await runtime.toolhost.boundary.execute({
      actionId: 'x',
      tool: 'exec.run',
      args: { program: 'runtests', program_path: `${tree.root}/userhome/bin/runtests`, args: [`${tree.root}/userhome`, `${tree.root}/userhome/.ssh/id_ed25519`], timeout: 10 },
      paths: [],
      decision: { decision: 'allow', tier: 'T1', approver: null, code: null, rule: 'test', reasons: [] },
    });
    expect(forced.result.stdout).not.toContain('KEY');
    expect(forced.result.stdout?.split('\n')).not.toContain('.ssh');
    expect(forced.result.stdout?.split('\n')).toContain('bin');
  });
});
