import { describe, expect, it, vi } from 'vitest';
import { RedactionError } from './errors.js';
import type { RedactionKind } from './kinds.js';
import { redact } from './redact.js';
import { B62, rand } from '../../../tests/fixtures/pseudo-random.js';

/**
 * SPEC §6 redaction, pattern by pattern. Fake tokens are assembled from pieces at run time so this
 * file holds no string a secret scanner would flag as a real credential.
 */

const B64URL = `${B62}-_`;
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

const b64url = (s: string) => btoa(s).replace(/\+/gu, '-').replace(/\//gu, '_').replace(/=+$/u, '');
const pem = (label: string, seed: number) =>
  [`-----BEGIN ${label}-----`, rand(seed, 64, `${B62}+/`), rand(seed + 1, 64, `${B62}+/`), rand(seed + 2, 20, `${B62}+/`) + '==', `-----END ${label}-----`].join('\n');

const FAKES: readonly (readonly [RedactionKind, string])[] = [
  ['anthropic-key', ['sk', 'ant', 'api03', rand(1, 93, B64URL) + 'AA'].join('-')],
  ['openai-key', ['sk', rand(2, 48)].join('-')],
  ['openai-key', ['sk', 'proj', rand(3, 120, B64URL)].join('-')],
  ['github-token', `ghp_${rand(4, 36)}`],
  ['github-token', `gho_${rand(5, 36)}`],
  ['github-token', `ghu_${rand(6, 36)}`],
  ['github-token', `ghs_${rand(7, 36)}`],
  ['github-token', `ghr_${rand(8, 36)}`],
  ['github-token', `github_pat_${rand(9, 22)}_${rand(10, 59)}`],
  ['aws-access-key-id', `AKIA${rand(11, 16, UPPER_DIGITS)}`],
  ['aws-access-key-id', `ASIA${rand(12, 16, UPPER_DIGITS)}`],
  ['private-key', pem('RSA PRIVATE KEY', 13)],
  ['private-key', pem('OPENSSH PRIVATE KEY', 16)],
  ['private-key', pem('PRIVATE KEY', 19)],
  ['private-key', pem('EC PRIVATE KEY', 22)],
  ['private-key', pem('PGP PRIVATE KEY BLOCK', 25)],
  ['jwt', [b64url('{"alg":"HS256","typ":"JWT"}'), b64url('{"sub":"1234567890","name":"agent"}'), rand(28, 43, B64URL)].join('.')],
  ['slack-token', ['xoxb', '123456789012', '1234567890123', rand(29, 24)].join('-')],
  ['slack-token', ['xoxp', '123456789012', '123456789012', '123456789012', rand(30, 32, 'abcdef0123456789')].join('-')],
  ['slack-webhook', `https://hooks.slack.com/services/T${rand(31, 8, UPPER_DIGITS)}/B${rand(32, 8, UPPER_DIGITS)}/${rand(33, 24)}`],
  ['google-api-key', `AIza${rand(34, 35, B64URL)}`],
  ['stripe-key', `sk_live_${rand(35, 24)}`],
  ['stripe-key', `rk_live_${rand(36, 24)}`],
  ['stripe-key', `sk_test_${rand(37, 24)}`],
  ['stripe-key', `rk_test_${rand(39, 24)}`],
  ['stripe-key', `whsec_${rand(40, 32)}`],
  ['npm-token', `npm_${rand(38, 36)}`],
];

describe('redact: high-precision patterns (SPEC §6)', () => {
  it.each(FAKES.map(([kind, secret], i) => [i, kind, secret] as const))('#%i hides a %s wherever it sits', (_i, kind, secret) => {
    const contexts: readonly (readonly [string, string])[] = [
      ['', ''],
      ['value: ', '\n'],
      ['{"k":"', '"}'],
      ['export X=', ' # set'],
    ];
    for (const [before, after] of contexts) {
      const text = `${before}${secret}${after}`;
      const r = redact(text);
      // A multi-line secret leaves its line breaks after the marker: the lines after it keep their numbers.
      expect(r.text).toBe(`${before}[REDACTED:${kind}]${'\n'.repeat(secret.split('\n').length - 1)}${after}`);
      expect(r.text.split('\n')).toHaveLength(text.split('\n').length);
      expect(r.redactions).toEqual([{ kind, start: before.length, end: before.length + secret.length }]);
    }
  });

  it('hides the rest of a private key block cut off by an output cap', () => {
    const block = pem('OPENSSH PRIVATE KEY', 40);
    const cut = block.slice(0, 90);
    const r = redact(`key:\n${cut}`);
    expect(r.text).toBe(`key:\n[REDACTED:private-key]${'\n'.repeat(cut.split('\n').length - 1)}`);
  });

  it('stops at the end of the key body when there is no END line and the text goes on', () => {
    const text = "private: '-----BEGIN PRIVATE KEY-----\\n...',\npublic: 'ok'";
    expect(redact(text).text).toBe("private: '[REDACTED:private-key]...',\npublic: 'ok'");
  });

  it('hides a PuTTY key file from its first line to the MAC', () => {
    const ppk = ['PuTTY-User-Key-File-3: ssh-ed25519', 'Encryption: none', 'Comment: agent', 'Public-Lines: 2', rand(90, 64, `${B62}+/`), rand(91, 20, `${B62}+/`), 'Private-Lines: 1', rand(92, 44, `${B62}+/`), `Private-MAC: ${rand(93, 64, 'abcdef0123456789')}`].join('\n');
    expect(redact(`${ppk}\nnext line`).text).toBe(`[REDACTED:private-key]${'\n'.repeat(8)}\nnext line`);
    // CRLF text keeps its own line breaks.
    expect(redact(`${ppk.replaceAll('\n', '\r\n')}\r\nnext line`).text).toBe(`[REDACTED:private-key]${'\r\n'.repeat(8)}\r\nnext line`);
  });

  it('stays linear on many BEGIN lines without an END', () => {
    const text = '-----BEGIN PRIVATE KEY-----...\n'.repeat(20_000);
    const started = Date.now();
    expect(redact(text).redactions).toHaveLength(20_000);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('hides the AWS secret access key by the name it sits under, and keeps the name', () => {
    const secret = rand(41, 40, `${B62}+/`);
    for (const line of [`aws_secret_access_key = ${secret}`, `AWS_SECRET_ACCESS_KEY=${secret}`, `"SecretAccessKey": "${secret}"`]) {
      const r = redact(line);
      expect(r.text).not.toContain(secret);
      expect(r.redactions).toHaveLength(1);
      expect(r.redactions[0]?.kind).toBe('aws-secret-access-key');
      expect(line.slice(r.redactions[0]?.start, r.redactions[0]?.end)).toBe(secret);
    }
  });

  it.each([
    ['postgres', 'postgres://app:PW@db.internal:5432/prod', 'connection-string'],
    ['postgresql', 'postgresql://app:PW@db/prod?sslmode=require', 'connection-string'],
    ['mysql', 'mysql://root:PW@127.0.0.1:3306/x', 'connection-string'],
    ['mongodb+srv', 'mongodb+srv://svc:PW@cluster0.example.net/db', 'connection-string'],
    ['redis without user', 'redis://:PW@cache:6379/0', 'connection-string'],
    ['amqp', 'amqp://guest:PW@mq:5672/vhost', 'connection-string'],
    ['https remote with a token', 'https://x-access-token:PW@github.com/org/repo.git', 'url-credentials'],
  ] as const)('hides the password of a %s URL and keeps user and host', (_name, template, kind) => {
    const password = `p${rand(42, 14)}`;
    const text = `DATABASE_URL="${template.replace('PW', password)}"`;
    const r = redact(text);
    expect(r.text).toBe(`DATABASE_URL="${template.replace('PW', `[REDACTED:${kind}]`)}"`);
    expect(r.redactions.map((s) => text.slice(s.start, s.end))).toEqual([password]);
  });

  it('takes an unescaped @ or : in a connection-string password as part of it', () => {
    const r = redact('postgres://app:p@ss:w0rd@db/x and more');
    expect(r.text).toBe('postgres://app:[REDACTED:connection-string]@db/x and more');
  });

  it.each([
    ['a scikit-learn name', 'pip install sk-learn-tutorial-for-beginners'],
    ['a short ghp_ prefix', 'see ghp_short and gho_'],
    ['AKIA inside a word', 'XAKIAABCDEFGHIJKLMNOPQ'],
    ['a user without a password', 'ssh://git@github.com/org/repo.git and git@github.com:org/repo'],
    ['a URL with a port', 'http://localhost:3000/users/@me'],
    ['a lone JWT-looking header', 'eyJhbGciOiJIUzI1NiJ9 is base64 of a header'],
    ['the word BEGIN', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----'],
  ])('leaves %s alone', (_name, text) => {
    expect(redact(text)).toEqual({ text, redactions: [] });
  });
});

describe('redact: known secrets', () => {
  const secret = `Zq${rand(50, 22)}!`;

  it('hides a known value wherever it appears, every time', () => {
    const text = `a ${secret} b ${secret}`;
    const r = redact(text, [secret]);
    expect(r.text).toBe('a [REDACTED:known-secret] b [REDACTED:known-secret]');
    expect(r.redactions.map((s) => text.slice(s.start, s.end))).toEqual([secret, secret]);
  });

  it('hides it URL-encoded, JSON-escaped, in base64 and base64url at every alignment', () => {
    const odd = `${secret} "q"/+?`;
    const bytes = (s: string) => btoa(s);
    const texts = [
      `?pw=${encodeURIComponent(odd)}&x=1`,
      `{"pw":${JSON.stringify(odd)}}`,
      `Authorization: Basic ${bytes(`user:${odd}`)}`,
      `data=${bytes(odd)}`,
      `data=${bytes(`x${odd}`)}`,
      `data=${bytes(`xy${odd}`)}`,
      `data=${bytes(`xy${odd}`).replace(/\+/gu, '-').replace(/\//gu, '_')}`,
    ];
    for (const text of texts) {
      const r = redact(text, [odd]);
      expect(r.redactions.length).toBeGreaterThan(0);
      expect(r.redactions.every((s) => s.kind === 'known-secret')).toBe(true);
      expect(r.text).not.toContain(encodeURIComponent(odd));
      expect(r.text).not.toContain(JSON.stringify(odd).slice(1, -1));
      // What is left of a base64 run is at most the few bits shared with the neighbours.
      expect(r.text).not.toContain(bytes(odd).slice(2, 10));
    }
  });

  it('ignores an empty known value and accepts short ones', () => {
    expect(redact('abc', ['']).text).toBe('abc');
    expect(redact('pin 4711 ok', ['4711']).text).toBe('pin [REDACTED:known-secret] ok');
  });
});

describe('redact: spans, overlaps and idempotence', () => {
  it('reports positions in the original text for several secrets', () => {
    const gh = `ghp_${rand(60, 36)}`;
    const aws = `AKIA${rand(61, 16, UPPER_DIGITS)}`;
    const text = `first ${gh}, then ${aws} and postgres://u:hunter2pass@h/db.`;
    const r = redact(text);
    expect(r.redactions.map((s) => [s.kind, text.slice(s.start, s.end)])).toEqual([
      ['github-token', gh],
      ['aws-access-key-id', aws],
      ['connection-string', 'hunter2pass'],
    ]);
    expect(r.text).toBe('first [REDACTED:github-token], then [REDACTED:aws-access-key-id] and postgres://u:[REDACTED:connection-string]@h/db.');
  });

  it('merges overlapping finds into one marker of the most specific kind', () => {
    const gh = `ghp_${rand(62, 36)}`;
    const known = `${gh.slice(20)} tail-of-it`; // overlaps the end of the GitHub token
    const text = `x ${gh} tail-of-it y`;
    const r = redact(text, [known]);
    expect(r.text).toBe('x [REDACTED:known-secret] y');
    expect(r.redactions).toEqual([{ kind: 'known-secret', start: 2, end: text.length - 2 }]);
  });

  it('merges a JWT used as a password and a token assignment into one span', () => {
    const jwt = [b64url('{"alg":"none"}'), b64url('{"sub":"agent-7"}'), ''].join('.');
    const text = `api_token=${jwt}`;
    const r = redact(text);
    expect(r.text).toBe('api_token=[REDACTED:jwt]');
    expect(r.redactions).toHaveLength(1);
  });

  it('catches a token whose context changes once a neighbour is redacted', () => {
    const gh = `ghp_${rand(63, 36)}`;
    const text = `id=zzzzzzzz${gh} ok`;
    const r = redact(text, ['zzzzzzzz']);
    expect(r.text).toBe('id=[REDACTED:known-secret][REDACTED:github-token] ok');
    expect(r.redactions.map((s) => text.slice(s.start, s.end))).toEqual(['zzzzzzzz', gh]);
  });

  it('changes nothing more when run on its own output', () => {
    const text = [
      ...FAKES.map(([, s]) => s),
      `password = "${rand(70, 24)}"`,
      'postgres://u:secretpass@db/x',
      `--token ${rand(71, 32)}`,
    ].join('\n');
    const once = redact(text, ['known-value-1234']);
    expect(once.redactions.length).toBeGreaterThanOrEqual(FAKES.length + 3);
    const twice = redact(once.text, ['known-value-1234']);
    expect(twice).toEqual({ text: once.text, redactions: [] });
  });
});

describe('redact: failure is loud (SPEC §6)', () => {
  it('refuses input that is not a string, and known values that are not strings', () => {
    expect(() => redact(42 as unknown as string)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => redact('x', [1] as unknown as string[])).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });

  it('throws rather than return a known secret that overlaps its own marker', () => {
    expect(() => redact('a REDACTED:known b', ['REDACTED:known'])).toThrow(expect.objectContaining({ name: 'RedactionError', code: 'residual_secret' }));
  });

  it('turns an internal fault into a RedactionError that carries no input', () => {
    const secret = `ghp_${rand(80, 36)}`;
    const spy = vi.spyOn(String.prototype, 'matchAll').mockImplementation(() => {
      throw new RangeError(`boom ${secret}`);
    });
    try {
      let caught: unknown;
      try {
        redact(`x ${secret}`);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(RedactionError);
      expect(caught).toMatchObject({ code: 'internal_error', causeName: 'RangeError' });
      expect((caught as Error).message).not.toContain(secret);
      expect((caught as Error).cause).toBeUndefined();
    } finally {
      spy.mockRestore();
    }
  });
});
