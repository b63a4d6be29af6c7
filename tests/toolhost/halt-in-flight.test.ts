import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../server/app/runtime.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { within } from '../fixtures/processes.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from './runtime-fixture.js';
import { git } from '../fixtures/git.js';

/**
 * HALT stops what is in flight, not only the processes running at that instant (SPEC §8 (1)–(2);
 * red team, session 33): a fetch between redirect hops, and an executor of several steps (a
 * git.commit: rev-parse, add, commit, rev-parse) whose first step HALT killed. Each ends HALTED,
 * and nothing it would have done after HALT happens.
 */
describe('HALT and actions in flight', () => {
  let tree: TempTree;
  let runtime: Runtime;
  let server: Server;
  let port = 0;
  const hops: { path: string; at: number }[] = [];
  let app = '';

  beforeAll(async () => {
    // Each hop answers a redirect to the next after 400 ms, five in all.
    server = createServer((req, res) => {
      hops.push({ path: req.url ?? '', at: Date.now() });
      const n = Number((req.url ?? '').split('/').at(-1));
      setTimeout(() => {
        if (n >= 5) res.end('the end');
        else res.writeHead(302, { location: `/r/${String(n + 1)}` }).end();
      }, 400);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;
    tree = tempTree('oracle-halt-flight-');
    app = tree.dir('projects/app');
    git(app, 'init', '-q', '-b', 'main');
    tree.file('projects/app/a.txt', 'a');
    git(app, 'add', '-A');
    git(app, 'commit', '-qm', 'first');
    tree.file('projects/app/b.txt', 'b');
    const policy = `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\negress:\n  allow: [{ host: "127.0.0.1:${String(port)}", why: the test server }]\n`;
    runtime = await runtimeFor(tree, policy, { resolve: () => Promise.reject(new Error('no DNS for IP literals')) });
  });
  afterEach(async () => {
    if (runtime.mode() === 'halted') await runtime.resume('desktop');
  });
  afterAll(async () => {
    await runtime.close();
    server.close();
    tree.dispose();
  });

  it('stops a fetch between its redirect hops, and returns nothing it got', async () => {
    const fetching = runtime.run({ tool: 'net.fetch', args: { url: `http://127.0.0.1:${String(port)}/r/0` } });
    for (let i = 0; i < 100 && hops.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(hops.length, 'the fetch is on its second hop').toBeGreaterThanOrEqual(2);
    await runtime.halt('mid-fetch', 'desktop');
    const halted = Date.now();
    const result = await within(fetching, 5000, 'the fetch ended after HALT');
    expect(result).toMatchObject({ executed: true, error: { code: 'HALTED' } });
    expect(result.output).toBeUndefined();
    // Nothing reached the server after HALT but, at most, the hop already on its way.
    await new Promise((r) => setTimeout(r, 1000));
    expect(hops.filter((h) => h.at > halted + 50)).toEqual([]);
    const terminal = auditRecords(runtime.gate.home).filter((r) => r['action_id'] === result.action_id && (r['kind'] === 'succeeded' || r['kind'] === 'failed'));
    expect(terminal).toEqual([expect.objectContaining({ kind: 'failed', outcome: 'HALTED' })]);
  });

  it('starts no later step of a git.commit whose first step HALT killed, and keeps no undo that would delete the branch', async () => {
    const head = git(app, 'rev-parse', 'HEAD');
    // HALT lands while the commit's first job (its rev-parse of HEAD) runs.
    const supervisor = runtime.toolhost.supervisor;
    const run = supervisor.run.bind(supervisor);
    const steps: string[] = [];
    supervisor.run = (spec) => {
      steps.push(spec.argv.join(' '));
      const running = run(spec);
      if (steps.length === 1) void runtime.halt('mid-commit', 'desktop');
      return running;
    };
    try {
      const result = await runtime.run({ tool: 'git.commit', args: { repo: app, message: 'made after HALT', paths: [`${app}/b.txt`] } });
      expect(result).toMatchObject({ executed: true, error: { code: 'HALTED' } });
      expect(result.undo_id).toBeUndefined();
    } finally {
      supervisor.run = run;
    }
    expect(steps, 'only the first step started').toHaveLength(1);
    expect(git(app, 'rev-parse', 'HEAD'), 'no commit was made').toBe(head);
    expect(git(app, 'log', '--format=%s')).toBe('first');
  });
});
