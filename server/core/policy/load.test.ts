import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LINUX, WINDOWS } from '../paths/flavor.js';
import { loadPolicy } from './load.js';

const seed = readFileSync(new URL('../../../config/examples/seed-001.yaml', import.meta.url), 'utf8');
const defaults = readFileSync(new URL('../../../config/policy.yaml', import.meta.url), 'utf8');

describe('loadPolicy', () => {
  it('loads the design document examples as written on Windows', () => {
    const result = loadPolicy(seed, { flavor: WINDOWS, userHome: 'C:/Users/qhukz' });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const { policy } = result;
    expect(policy.scopes.map((s) => s.name)).toEqual(['projects', 'notes', 'scratch']);
    expect(policy.scopes[0]?.roots[0]).toMatchObject({ path: 'C:/Projects', mode: 'rw' });
    expect(policy.scopes[1]?.roots[1]?.path).toBe('C:/Users/qhukz/Documents/AI/ML Learning');
    // deny_always nested under scopes, as the document writes it
    expect(policy.denyAlways.map((d) => d.pattern)).toContain('**/.git/hooks/**');
    expect(policy.denyAlways[0]?.rule).toBe('scopes.deny_always[0]');
    const git = policy.programs.get('git');
    expect(git?.path).toBe('C:/Program Files/Git/cmd/git.exe');
    expect(git?.deny.map((e) => [e.words, e.flags])).toEqual([[['filter-branch'], []], [['push'], ['--force']]]);
    expect(policy.programs.get('docker')?.deny[0]?.words).toEqual(['system', 'prune']);
    expect(policy.programs.get('python')?.argPatterns.map((p) => p.pattern)).toEqual(['-m pytest*', '-m venv*']);
    expect(policy.egress.allow.map((h) => h.host)).toEqual(['api.anthropic.com', '127.0.0.1']);
    expect(result.warnings).toEqual([]);
  });

  it('reads programs.default (absent: deny) and holds it to deny or confirm', () => {
    const read = (text: string) => loadPolicy(text, { flavor: LINUX, userHome: '/home/u' });
    const absent = read('programs:\n  git: {}\n');
    expect(absent.ok && absent.policy.programDefault).toBe('deny');
    const confirm = read('programs:\n  default: confirm\n  git: {}\n');
    expect(confirm.ok && confirm.policy.programDefault).toBe('confirm');
    expect(confirm.ok && [...confirm.policy.programs.keys()]).toEqual(['git']);
    const asProgram = read('programs:\n  default: { subcommands: { allow: [x] } }\n');
    expect(asProgram.ok).toBe(false);
    if (!asProgram.ok) expect(asProgram.errors[0]?.message).toContain('programs.default');
    const stray = read('programs:\n  git: confirm\n');
    expect(stray.ok).toBe(false);
    expect(read('programs:\n  default: maybe\n').ok).toBe(false);
  });

  it('loads the same file on Linux, keeping Windows roots as warnings without effect', () => {
    const result = loadPolicy(seed, { flavor: LINUX, userHome: '/home/u' });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.policy.scopes.every((s) => s.roots.length === 0)).toBe(true);
    expect(result.warnings.map((w) => w.line)).toEqual([8, 11, 12, 14]);
  });

  it('loads the shipped default policy on Linux, macOS and Windows', () => {
    for (const [flavor, home] of [
      [LINUX, '/home/u'],
      [WINDOWS, 'C:/Users/u'],
    ] as const) {
      const result = loadPolicy(defaults, { flavor, userHome: home });
      if (!result.ok) throw new Error(JSON.stringify(result.errors));
      expect(result.policy.scopes.find((s) => s.name === 'projects')?.roots[0]?.path).toBe(`${home}/projects`);
    }
  });

  it('reports every error with its line and column', () => {
    const text = ['scopes:', '  projects:', '    roots:', '      - { path: /p, mode: rx }', 'programs:', '  git: { subcomands: { allow: [status] } }', 'unknown_section: 1', 'tiers:', '  - { tool: git.push, tier: T1 }', '  - { tool: fs.nope, tier: T0 }'].join('\n');
    const result = loadPolicy(text, { flavor: LINUX, userHome: '/home/u' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const byLine = result.errors.map((e) => [e.line, e.path]);
    expect(byLine).toContainEqual([4, 'scopes.projects.roots[0].mode']);
    expect(byLine).toContainEqual([6, 'programs.git.subcomands']);
    expect(byLine).toContainEqual([7, 'unknown_section']);
  });

  it('refuses tier rules below a tool contract floor and names that are not tools', () => {
    const text = 'scopes:\n  p: { roots: [{ path: /p }] }\ntiers:\n  - { tool: git.push, tier: T1 }\n  - { tool: fs.nope, tier: T0 }\n  - { tool: fs.delete, scope: nowhere, tier: T2 }\n';
    const result = loadPolicy(text, { flavor: LINUX, userHome: '/home/u' });
    if (result.ok) throw new Error('expected errors');
    expect(result.errors.map((e) => [e.line, e.message])).toEqual([
      [4, 'git.push can never be below T2; this rule asks for T1'],
      [5, '`fs.nope` is not a tool in the registry'],
      [6, 'no scope is named `nowhere`'],
    ]);
  });

  it('reports YAML syntax errors and duplicate keys with their lines', () => {
    const broken = loadPolicy('scopes:\n  a: [1,\n', { flavor: LINUX, userHome: '/' });
    expect(broken.ok).toBe(false);
    const dup = loadPolicy('scopes: {}\nprograms: {}\nscopes: {}\n', { flavor: LINUX, userHome: '/' });
    if (dup.ok) throw new Error('duplicate keys must fail');
    expect(dup.errors[0]?.line).toBe(3);
    // The key is named: two scopes called `work` are one map key twice.
    const twice = loadPolicy('scopes:\n  work: { roots: [{ path: /a }] }\n  "work": { roots: [{ path: /b }] }\n', { flavor: LINUX, userHome: '/' });
    if (twice.ok) throw new Error('duplicate keys must fail');
    expect(twice.errors.map((e) => [e.line, e.message])).toEqual([[3, '`work` appears twice in the same map: merge the two, or give the second its own name (a second scope or agent needs a name of its own)']]);
  });

  it('keeps valid scopes and deny_always for read-only mode, and nothing when those are broken', () => {
    const partly = loadPolicy('scopes:\n  p: { roots: [{ path: /p, mode: rw }] }\ndeny_always: ["**/.ssh/**"]\nprograms: { git: { bogus: 1 } }\n', { flavor: LINUX, userHome: '/' });
    if (partly.ok) throw new Error('expected errors');
    expect(partly.readOnly.scopes[0]?.roots[0]?.path).toBe('/p');
    expect(partly.readOnly.denyAlways[0]?.pattern).toBe('**/.ssh/**');
    expect([...partly.readOnly.capabilities]).toEqual(['fs.read']);
    const broken = loadPolicy('scopes:\n  p: { roots: [{ path: relative/p }] }\n', { flavor: LINUX, userHome: '/' });
    if (broken.ok) throw new Error('expected errors');
    expect(broken.readOnly.scopes).toEqual([]);
  });

  it('keeps nothing for read-only mode when a top-level key is misspelt (it may be the deny list)', () => {
    const typo = loadPolicy('scopes:\n  p: { roots: [{ path: /p, mode: rw }] }\ndeny_alway: ["**/.env"]\n', { flavor: LINUX, userHome: '/' });
    if (typo.ok) throw new Error('expected errors');
    expect(typo.errors[0]?.message).toBe('unknown key `deny_alway`');
    expect(typo.readOnly.scopes).toEqual([]);
  });

  it('refuses extended globs, which would silently never match', () => {
    const result = loadPolicy('deny_always: ["+(secrets)", "C:/Program Files (x86)/**"]\n', { flavor: LINUX, userHome: '/' });
    if (result.ok) throw new Error('expected errors');
    expect(result.errors.map((e) => e.path)).toEqual(['deny_always[0]']);
  });

  it('expands ~ in the file only, and refuses relative roots and program paths', () => {
    const ok = loadPolicy('scopes:\n  p: { roots: [{ path: "~/code" }] }\ndeny_always: ["~/secret/**"]\n', { flavor: LINUX, userHome: '/home/u' });
    if (!ok.ok) throw new Error(JSON.stringify(ok.errors));
    expect(ok.policy.scopes[0]?.roots[0]?.path).toBe('/home/u/code');
    expect(ok.policy.denyAlways[0]?.pattern).toBe('/home/u/secret/**');
    const bad = loadPolicy('programs:\n  git: { path: bin/git }\n', { flavor: LINUX, userHome: '/home/u' });
    expect(bad.ok).toBe(false);
  });

  it('refuses an exclude written as a full path, which would never match, and names the relative one', () => {
    const read = (exclude: string, root = '/srv/app') => loadPolicy(`scopes:\n  w: { roots: [{ path: "${root}", mode: rw, exclude: ["${exclude}"] }] }\n`, { flavor: LINUX, userHome: '/home/u' });
    const full = read('/srv/app/build/**');
    if (full.ok) throw new Error('a full-path exclude must not load');
    expect(full.errors.map((e) => [e.line, e.path])).toEqual([[2, 'scopes.w.roots[0].exclude[0]']]);
    expect(full.errors[0]?.message).toContain('write `build/**`');
    const tilde = read('~/app/build', '~/app');
    if (tilde.ok) throw new Error('a ~ exclude must not load');
    expect(tilde.errors[0]?.message).toContain('write `build`');
    expect(read('~/elsewhere/**').ok).toBe(false);
    // Anchored at the root as in .gitignore, or at any depth: unchanged.
    for (const fine of ['/build/**', 'build/**', 'build', '**/target/**']) expect(read(fine).ok, fine).toBe(true);
    expect(read('/srv/app/build/**', '/').ok).toBe(true);
  });

  it('refuses a second root at the same place with another mode or exclude (the first would win silently)', () => {
    const read = (second: string) => loadPolicy(`scopes:\n  a: { roots: [{ path: "~/work", mode: rw }] }\n  b: { roots: [${second}] }\n`, { flavor: LINUX, userHome: '/home/u' });
    const ro = read('{ path: "/home/u/work/", mode: ro }');
    if (ro.ok) throw new Error('a conflicting duplicate root must not load');
    expect(ro.errors.map((e) => [e.line, e.path])).toEqual([[3, 'scopes.b.roots[0].path']]);
    expect(ro.errors[0]?.message).toContain('scopes.a.roots[0]');
    expect(read('{ path: "~/work", mode: rw, exclude: [build] }').ok).toBe(false);
    expect(read('{ path: "~/work", mode: rw }').ok).toBe(true);
    expect(read('{ path: "~/work/vendor", mode: ro }').ok).toBe(true);
  });

  it('says what is wrong inside a program entry and with a program name, not a bare "Invalid input"', () => {
    const errors = (text: string) => {
      const result = loadPolicy(text, { flavor: LINUX, userHome: '/home/u' });
      if (result.ok) throw new Error('expected errors');
      return result.errors.map((e) => `${String(e.line)} ${e.path}: ${e.message}`);
    };
    expect(errors('programs:\n  cargo:\n    subcommands: [build, test]\n')).toEqual(['3 programs.cargo.subcommands: Invalid input: expected object, received array']);
    // `allow` indented one level too little
    expect(errors('programs:\n  cargo:\n    subcommands:\n    allow: [build]\n')).toEqual([
      '3 programs.cargo.subcommands: Invalid input: expected object, received null',
      '4 programs.cargo.allow: unknown key `allow`',
    ]);
    expect(errors('programs:\n  cargo: yes\n')).toEqual(['2 programs.cargo: a program is `{path?, subcommands: {allow, confirm, deny}, allow_args_matching: [...], default?: deny|confirm}`, each list in brackets']);
    const [byPath] = errors('programs:\n  /usr/bin/make: { subcommands: { allow: [test] } }\n');
    expect(byPath).toMatch(/^2 programs\./u);
    expect(byPath).toContain('name the program (`make`) and give its location as `path: /usr/bin/make`');
    expect(errors('programs:\n  "python3 -m pytest": {}\n')[0]).toContain('arguments go in `subcommands` or `allow_args_matching`');
    expect(errors('programs:\n  make: { default: allow }\n').join(' ')).toContain('programs.make');
  });

  it('says how to write a root that is relative, a pattern, another user\'s ~ or a variable', () => {
    const said = (root: string, flavor = LINUX) => {
      const result = loadPolicy(`scopes:\n  w: { roots: [{ path: '${root}' }] }\n`, { flavor, userHome: flavor === LINUX ? '/home/u' : 'C:/Users/u' });
      if (result.ok) throw new Error(`${root} must not load`);
      return result.errors.map((e) => `${e.path}: ${e.message}`);
    };
    expect(said('work/app')).toEqual(['scopes.w.roots[0].path: `work/app`: a root is absolute (the gate has no working directory to put it under): start it with `/` or `~/`']);
    expect(said('work\\app', WINDOWS)[0]).toContain('start it with a drive (`C:/`) or `~/`');
    expect(said('/srv/*/app')[0]).toContain('a root is one folder, not a pattern');
    expect(said('~/work/**')[0]).toContain('a root is one folder, not a pattern');
    expect(said('~bob/work')[0]).toContain("only `~/` (your own home) is expanded: write another user's folder in full");
    expect(said('$HOME/work')[0]).toContain('variables are not expanded in the policy');
  });

  it('treats an empty file as a valid policy that grants nothing', () => {
    const result = loadPolicy('', { flavor: LINUX, userHome: '/' });
    if (!result.ok) throw new Error('empty must load');
    expect(result.policy.scopes).toEqual([]);
  });
});
