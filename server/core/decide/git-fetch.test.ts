import { describe, expect, it } from 'vitest';
import type { EgressPolicy } from '../policy/types.js';
import { fetchRemoteArg, judgeGitFetch, type RemoteFacts } from './git-fetch.js';
import type { Outcome } from './outcome.js';

const granted: Extract<Outcome, { ok: true }> = { ok: true, tier: 'T1', rule: 'programs.git.subcommands.allow[0]', reasons: ['`git fetch` is on the allow list'] };
const egress = (dflt: 'deny' | 'confirm'): EgressPolicy => ({ allow: [{ host: 'github.com', port: undefined, why: 'GitHub', rule: 'egress.allow[0]' }], default: dflt });
const at = (url: string, remote = 'origin'): RemoteFacts => ({ ok: true, remote, url });
const judged = (argv: string[], facts: RemoteFacts | undefined, dflt: 'deny' | 'confirm' = 'deny') => judgeGitFetch(granted, argv, facts, egress(dflt));

describe('git fetch and pull as egress to the remote host', () => {
  it('keeps the grammar tier for an allow-listed host, in every URL form git takes', () => {
    for (const url of ['https://github.com/acme/app.git', 'git@github.com:acme/app.git', 'ssh://git@github.com/acme/app.git', 'https://github.com:443/acme/app']) {
      const out = judged(['fetch'], at(url));
      expect(out, url).toMatchObject({ ok: true, tier: 'T1' });
      expect(out.reasons.join(' '), url).toContain('`github.com` is allow-listed (GitHub)');
    }
    expect(judged(['pull', '--ff-only', 'origin', 'main'], at('https://github.com/acme/app.git'))).toMatchObject({ ok: true, tier: 'T1' });
  });

  it('refuses an unlisted host under egress.default deny, and asks a person under confirm', () => {
    expect(judged(['fetch', 'evil'], at('https://exfil.example/x.git', 'evil'))).toMatchObject({ ok: false, code: 'EGRESS_DENIED' });
    expect(judged(['fetch', 'evil'], at('https://exfil.example/x.git', 'evil'), 'confirm')).toMatchObject({ ok: true, tier: 'T2', floor: 'T2' });
    // Another port on an allow-listed host is another server.
    expect(judged(['fetch'], at('https://github.com:8443/acme/app.git'))).toMatchObject({ ok: false, code: 'EGRESS_DENIED' });
  });

  it('sends to a person what it cannot place: not looked up, no such remote, a local path, a helper, a bad URL', () => {
    for (const facts of [undefined, { ok: false, reason: 'this repository has no remote `origin` to fetch from' } as const, at('/srv/other.git'), at('file:///srv/other.git'), at('ext::sh -c evil'), at('https://exa mple/x')]) {
      expect(judged(['fetch'], facts), JSON.stringify(facts)).toMatchObject({ ok: true, tier: 'T2', floor: 'T2' });
    }
  });

  it('never sends a password it was not told about', () => {
    expect(judged(['fetch'], at('https://me:hunter2@github.com/acme/app.git'))).toMatchObject({ ok: false, code: 'URL_INVALID' });
  });

  it('reads which remote the argv names, and what it cannot account for', () => {
    expect(fetchRemoteArg(['fetch'])).toEqual({ remote: undefined });
    expect(fetchRemoteArg(['fetch', '--prune', 'upstream'])).toEqual({ remote: 'upstream' });
    expect(fetchRemoteArg(['pull', '--rebase', 'origin', 'main', 'feature:feature'])).toEqual({ remote: 'origin' });
    expect(fetchRemoteArg(['fetch', '--depth=1', 'https://github.com/acme/app.git'])).toEqual({ remote: 'https://github.com/acme/app.git' });
    for (const argv of [['fetch', '--all'], ['fetch', '--multiple', 'a', 'b'], ['fetch', '--recurse-submodules'], ['pull', 'origin', '+main:main'], ['fetch', 'origin', 'refs/*:refs/*'], ['fetch', '--', 'origin'], ['fetch', '--depth=0']]) {
      expect(fetchRemoteArg(argv), argv.join(' ')).toHaveProperty('unclear');
      expect(judged(argv, at('https://github.com/acme/app.git')), argv.join(' ')).toMatchObject({ ok: true, tier: 'T2' });
    }
  });
});
