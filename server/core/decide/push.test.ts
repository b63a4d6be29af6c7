import { describe, expect, it } from 'vitest';
import type { EgressPolicy } from '../policy/types.js';
import { remoteWhere, shownUrl } from './git-remote.js';
import { judgePush, type PushFacts } from './push.js';

describe('remoteWhere: a git URL read the way git reads it', () => {
  it.each([
    ['https://github.com/o/r.git', { kind: 'network', scheme: 'https', host: 'github.com', port: '443' }],
    ['ssh://git@GitHub.com:2222/o/r.git', { kind: 'network', scheme: 'ssh', host: 'github.com', port: '2222', user: 'git' }],
    ['git@github.com:o/r.git', { kind: 'network', scheme: 'ssh', host: 'github.com', port: '22', user: 'git' }],
    ['github.com:o/r.git', { kind: 'network', scheme: 'ssh', host: 'github.com', port: '22' }],
    ['[::1]:repo.git', { kind: 'network', host: '::1' }],
    ['git://127.0.0.1:9999/r.git', { kind: 'network', scheme: 'git', host: '127.0.0.1', port: '9999' }],
    ['https://u:p@host.example/r.git', { kind: 'network', password: true }],
    ['/srv/git/r.git', { kind: 'local' }],
    ['./r.git', { kind: 'local' }],
    ['dir/with:colon', { kind: 'local' }],
    ['file:///srv/r.git', { kind: 'local' }],
    ['ext::sh -c touch% /tmp/x', { kind: 'helper', transport: 'ext' }],
    ['fd::17', { kind: 'helper', transport: 'fd' }],
    ['ftp://host/r.git', { kind: 'invalid' }],
    ['https://host/a b', { kind: 'invalid' }],
    ['evil\u0007host:r', { kind: 'invalid' }],
    ['https://github.com:443/o/r.git', { kind: 'network', host: 'github.com', port: '443' }],
    ['https://git_host.example/r.git', { kind: 'network', host: 'git_host.example' }],
    ['ssh://git@[::1]:2222/r.git', { kind: 'network', host: '::1', port: '2222' }],
    // Read one way by the WHATWG parser and another by curl or git (red team, session 33).
    ['https://github.com\\@127.0.0.2:8443/me/app.git', { kind: 'invalid' }],
    ['https://github.com\\.evil.example/r.git', { kind: 'invalid' }],
    ['https://a@b@127.0.0.2/r.git', { kind: 'invalid' }],
    ['https://127.1/r.git', { kind: 'invalid' }],
    ['https://0x7f.0.0.1/r.git', { kind: 'invalid' }],
    ['https://%67ithub.com/r.git', { kind: 'invalid' }],
    ['https://gïthub.com/r.git', { kind: 'invalid' }],
  ])('%s', (url, expected) => {
    expect(remoteWhere(url)).toMatchObject(expected);
  });

  it('never prints a password', () => {
    expect(shownUrl('https://me:hunter2@host.example/r.git')).toBe('https://me:[password]@host.example/r.git');
    expect(shownUrl('git@github.com:o/r.git')).toBe('git@github.com:o/r.git');
  });
});

describe('judgePush', () => {
  const egress: EgressPolicy = { allow: [{ host: 'github.com', port: undefined, why: 'code', rule: 'egress.allow[0]' }], default: 'deny' };
  const args = { repo: '/p/app', remote: 'origin', branch: 'main', force: false };
  const facts = (url: string): PushFacts => ({ ok: true, target: { url, commit: 'a'.repeat(40), leaving: [{ sha: 'b'.repeat(40), subject: 'fix' }], count: 1 } });

  it('is T2 to an allow-listed host, on the scheme’s default port, with the URL and commits for the card', () => {
    for (const url of ['https://github.com/o/r.git', 'git@github.com:o/r.git']) {
      const judged = judgePush(args, facts(url), egress);
      expect(judged.outcome).toMatchObject({ ok: true, tier: 'T2', floor: 'T2' });
      expect(judged.extra).toEqual({ url, commit: 'a'.repeat(40), leaving: [`${'b'.repeat(12)} fix`], leaving_count: 1 });
    }
  });

  it('refuses what the allowlist does not admit, and asks when egress.default is confirm', () => {
    expect(judgePush(args, facts('https://gitlab.com/o/r.git'), egress).outcome).toMatchObject({ ok: false, code: 'EGRESS_DENIED' });
    expect(judgePush(args, facts('ssh://git@github.com:2222/o/r.git'), egress).outcome).toMatchObject({ ok: false, code: 'EGRESS_DENIED' });
    expect(judgePush(args, facts('ssh://git@github.com:2222/o/r.git'), egress).outcome).toMatchObject({ reasons: [expect.stringContaining('`github.com` is in the egress allowlist for port 22 (the default port of the scheme, as an entry without a port means) only, not port 2222') as unknown] });
    expect(judgePush(args, facts('https://gitlab.com/o/r.git'), { ...egress, default: 'confirm' }).outcome).toMatchObject({ ok: true, tier: 'T2', rule: 'egress.default' });
  });

  it('refuses local paths, helpers, passwords, a failed lookup and no lookup at all', () => {
    expect(judgePush(args, facts('/srv/r.git'), egress).outcome).toMatchObject({ code: 'GIT_REMOTE' });
    expect(judgePush(args, facts('ext::sh'), egress).outcome).toMatchObject({ code: 'GIT_REMOTE' });
    expect(judgePush(args, facts('https://u:tok@github.com/o/r.git'), egress).outcome).toMatchObject({ code: 'URL_INVALID' });
    // The WHATWG parser reads github.com here; curl and git read 127.0.0.2.
    expect(judgePush(args, facts('https://github.com\\@127.0.0.2:8443/me/app.git'), egress).outcome).toMatchObject({ ok: false, code: 'GIT_REMOTE' });
    expect(judgePush(args, { ok: false, reason: 'no such remote' }, egress).outcome).toMatchObject({ code: 'GIT_REMOTE', reasons: ['no such remote'] });
    expect(judgePush(args, undefined, egress).outcome).toMatchObject({ code: 'GIT_REMOTE' });
  });

  it('checks the shape before anything else', () => {
    expect(judgePush({ ...args, force: true }, facts('https://github.com/o/r.git'), egress).outcome).toMatchObject({ code: 'GIT_FORCE_PUSH' });
    expect(judgePush({ ...args, remote: '--upload-pack=x' }, undefined, egress).outcome).toMatchObject({ code: 'ARG_SHAPE' });
  });
});
