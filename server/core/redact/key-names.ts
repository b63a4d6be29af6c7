/**
 * Which key, header or flag names hold a secret value (SPEC §6 "key-like names"). A name is split
 * into words (snake, kebab, dotted, camelCase) so `GITHUB_TOKEN`, `x-api-key`, `accessToken` and
 * `db.password` match while `max_tokens`, `tokenizer` and `author` do not.
 */

const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'cookie',
  'privatekey',
  'bearer',
]);

/** Two-word names whose words are harmless alone (`key`, `access`). */
const SECRET_PAIRS = new Set(['api key', 'private key', 'access key', 'secret key', 'signing key', 'encryption key', 'master key', 'client secret']);

/**
 * A last word that makes the name about a secret rather than the secret itself: `secret_name`,
 * `token_path`, `password_file`, `auth_mode`, `token_uri`. Secret names are how ORACLE refers to
 * secrets (SPEC §6), so hiding them would only blind the approval card.
 */
const NOT_A_VALUE = new Set([
  'name',
  'names',
  'id',
  'ids',
  'ref',
  'path',
  'file',
  'dir',
  'type',
  'kind',
  'count',
  'length',
  'len',
  'env',
  'var',
  'field',
  'hint',
  'mode',
  'policy',
  'prompt',
  'required',
  'enabled',
  'expires',
  'expiry',
  'ttl',
  'at',
  'url',
  'uri',
  'endpoint',
  'limit',
  'size',
]);

export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/gu, '$1 $2')
    // `HTTPSProxy` → `HTTPS Proxy`, with a look-ahead only: `([A-Z]+)([A-Z][a-z])` backtracked
    // over every run of capitals, quadratic in a key of 100,000 of them (red team, session 31).
    .replace(/([A-Z])(?=[A-Z][a-z])/gu, '$1 ')
    .toLowerCase()
    .split(/[^a-z0-9]+/u)
    .filter((w) => w !== '');
}

export function isSecretKeyName(name: string): boolean {
  const words = nameWords(name);
  const last = words.at(-1);
  if (last === undefined || NOT_A_VALUE.has(last)) return false;
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] ?? '';
    if (SECRET_WORDS.has(word)) return true;
    const next = words[i + 1];
    if (next !== undefined && SECRET_PAIRS.has(`${word} ${next}`)) return true;
  }
  return false;
}
