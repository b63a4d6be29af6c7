import { describe, expect, it } from 'vitest';
import { looksLikeOpaqueToken, shannonEntropy, wordiness } from './entropy.js';
import { isSecretKeyName } from './key-names.js';
import { redact } from './redact.js';
import { B62, rand } from '../../../tests/fixtures/pseudo-random.js';

/** SPEC §6: "an entropy check for long opaque tokens near key-like names", both directions. */

const HEX = '0123456789abcdef';

describe('shannonEntropy and wordiness', () => {
  it('measures bits per character', () => {
    expect(shannonEntropy('')).toBe(0);
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abab')).toBe(1);
    expect(shannonEntropy('0123456789abcdef')).toBe(4);
  });

  it('sees words in identifiers and not in random text', () => {
    expect(wordiness('TheQuickBrownFox')).toBeGreaterThan(0.6);
    expect(wordiness('ANTHROPIC_API_KEY')).toBeGreaterThan(0.5);
    expect(wordiness('q8Zk3LmP0vXa7Rt2Yw9B')).toBeLessThan(0.3);
  });
});

describe('looksLikeOpaqueToken', () => {
  it('accepts nearly every random token (measured thresholds, see entropy.ts)', () => {
    const accepted = (length: number, alphabet: string) => {
      let n = 0;
      for (let seed = 1; seed <= 500; seed += 1) if (looksLikeOpaqueToken(rand(seed * 7919 + length, length, alphabet))) n += 1;
      return n / 500;
    };
    expect(accepted(20, B62)).toBeGreaterThanOrEqual(0.97);
    expect(accepted(32, B62)).toBeGreaterThanOrEqual(0.99);
    expect(accepted(40, HEX)).toBeGreaterThanOrEqual(0.99);
  });

  it.each([
    ['too short', 'q8Zk3LmP0vXa7Rt2'],
    ['a repeated placeholder', 'changeme-changeme-changeme'],
    ['one character', 'x'.repeat(40)],
    ['a hex run without letters', '12345678901234567890123'],
    ['a low-entropy hex pattern', 'deadbeef'.repeat(4)],
    ['a path', '/var/lib/oracle/tokens/current.json'],
    ['a relative path', './config/credentials-v2/prod.yaml'],
    ['a kebab identifier', 'interactive-browser-flow'],
    ['a SCREAMING_SNAKE name', 'ANTHROPIC_API_KEY_PRODUCTION_2'],
    ['a camelCase phrase', 'ExampleTokenValueForDocs'],
    ['a dotted name', 'com.example.service.authentication'],
    ['a dotted type name', 'NodeJS.ArrayBufferView'],
  ])('rejects %s', (_name, value) => {
    expect(looksLikeOpaqueToken(value)).toBe(false);
  });
});

describe('isSecretKeyName', () => {
  it.each(['password', 'PASSWORD', 'db_passwd', 'pwd', 'GITHUB_TOKEN', 'accessToken', 'x-api-key', 'apiKey', 'APIKey', 'api_key', 'apikey', 'client_secret', 'Authorization', 'auth', 'aws.secret', 'private_key', 'privateKey', 'credentials', 'Cookie', 'db.password', 'passphrase'])(
    '%s names a secret',
    (name) => {
      expect(isSecretKeyName(name)).toBe(true);
    },
  );

  it.each(['max_tokens', 'tokenizer', 'author', 'key', 'access', 'sha', 'commit', 'request_id', 'secret_name', 'token_path', 'password_file', 'auth_mode', 'token_uri', 'private_key_id', 'tokenCount', ''])(
    '%s does not',
    (name) => {
      expect(isSecretKeyName(name)).toBe(false);
    },
  );
});

describe('redact: opaque tokens next to key-like names', () => {
  const token = rand(101, 32);
  const hex = rand(102, 40, HEX);

  it.each([
    ['KEY=value', `GITHUB_TOKEN=${token}`, token],
    ['quoted env', `export API_KEY="${token}"`, token],
    ['JSON', `{"apiKey": "${token}", "n": 1}`, token],
    ['YAML', `auth:\n  client_secret: ${token}\n`, token],
    ['a hex key', `secret: ${hex}`, hex],
    ['a bearer header', `Authorization: Bearer ${token}`, token],
    ['a basic header', `authorization: Basic ${btoa(`user:${token}`)}`, btoa(`user:${token}`)],
    ['an arrow', `'password' => '${token}'`, token],
    ['a long flag', `deploy --token ${token} --yes`, token],
    ['a flag with =', `deploy --db-password=${token}`, token],
    ['a query parameter', `GET /cb?access_token=${token}&state=1`, token],
    ['a dotted OAuth token', `access_token: ya29.${token}`, `ya29.${token}`],
    ['a tail outside the token alphabet', `DB_PASSWORD='${token}!#$' rest`, `${token}!#$`],
  ])('hides the value of %s', (_name, text, secret) => {
    const r = redact(text);
    expect(r.text).not.toContain(secret);
    expect(r.redactions.map((s) => [s.kind, text.slice(s.start, s.end)])).toEqual([['secret-assignment', secret]]);
  });

  const sha = rand(103, 40, HEX);
  const uuid = [rand(104, 8, HEX), rand(105, 4, HEX), `4${rand(106, 3, HEX)}`, `a${rand(107, 3, HEX)}`, rand(108, 12, HEX)].join('-');
  const ordinaryBase64 = btoa('the quick brown fox jumps over the lazy dog');

  it.each([
    ['a git SHA on its own', `commit ${sha}\nAuthor: A <a@example.org>`],
    ['a git SHA under an ordinary key', `sha: ${sha}\nparent=${sha}`],
    ['a UUID on its own', `request ${uuid} failed`],
    ['a UUID under an ordinary key', `request_id=${uuid}`],
    ['a token path', 'token_file=/var/lib/oracle/tokens/current.json'],
    ['a secret file path', 'password_file: /run/secrets/db_password_v2'],
    ['base64 of words on its own', `body: ${ordinaryBase64}`],
    ['a secret name', 'secret_name: ANTHROPIC_API_KEY_PRODUCTION'],
    ['a mode', 'auth_mode: interactive-browser-flow'],
    ['a count', 'max_tokens: 100000000000000000000'],
    ['a phrase', 'token: ExampleTokenValueForDocs'],
    ['a placeholder', 'password: changeme-changeme-changeme'],
    ['a random token under an ordinary key', `checksum=${token}`],
    ['a short password', 'password=hunter2'],
    ['a type annotation', 'setPrivateKey(privateKey: NodeJS.ArrayBufferView): this;'],
  ])('leaves %s alone', (_name, text) => {
    expect(redact(text)).toEqual({ text, redactions: [] });
  });
});
