import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSecretStore, KeyringSecretStore, openSecretStore, PROBE_ACCOUNT, SecretStoreError, type KeyringBackend, type SecretStore } from '../../server/adapters/secrets/index.js';

/**
 * SPEC §6 secret storage on real temporary directories: modes, owners, links, atomic writes,
 * name grammar, and that no value ever appears in an error message.
 */

const POSIX = typeof process.getuid === 'function';
const VALUE = ['s3cr3t', 'VALUE', 'do-not-print', '9f8e7d'].join('-');

let home: string;
let store: FileSecretStore;

beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'oracle-secrets-')));
  store = new FileSecretStore(home);
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

const mode = (path: string) => statSync(path).mode & 0o777;

/** The rejection of `op`, asserted to be a SecretStoreError with `code` and no secret value. */
async function refusal(op: () => Promise<unknown>, code: string, ...values: string[]): Promise<SecretStoreError> {
  let caught: unknown;
  try {
    await op();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(SecretStoreError);
  const error = caught as SecretStoreError;
  expect(error.code).toBe(code);
  for (const value of [VALUE, ...values]) {
    expect(error.message).not.toContain(value);
    expect(String(error.stack)).not.toContain(value);
  }
  return error;
}

describe('FileSecretStore', () => {
  it('round-trips values, lists names, deletes', async () => {
    expect(store.kind).toBe('file');
    expect(store.description).toContain(join(home, 'data', 'secrets.json'));
    expect(await store.get('anthropic_api_key')).toBeUndefined();
    expect(await store.names()).toEqual([]);
    await store.set('anthropic_api_key', VALUE);
    await store.set('b.key-2', 'multi\nline "quoted" ünïcode');
    expect(await store.get('anthropic_api_key')).toBe(VALUE);
    expect(await store.get('b.key-2')).toBe('multi\nline "quoted" ünïcode');
    expect(await store.names()).toEqual(['anthropic_api_key', 'b.key-2']);
    await store.set('anthropic_api_key', `${VALUE}-2`);
    expect(await new FileSecretStore(home).get('anthropic_api_key')).toBe(`${VALUE}-2`);
    expect(await store.delete('anthropic_api_key')).toBe(true);
    expect(await store.delete('anthropic_api_key')).toBe(false);
    expect(await store.names()).toEqual(['b.key-2']);
  });

  it('treats names as data, not as object properties', async () => {
    expect(await store.get('constructor')).toBeUndefined();
    await store.set('constructor', VALUE);
    expect(await store.get('constructor')).toBe(VALUE);
    expect(await store.get('toString')).toBeUndefined();
  });

  it('serialises concurrent writes in one process without losing any', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.set(`k${i}`, `${VALUE}${i}`)));
    expect(await store.names()).toHaveLength(20);
  });

  it.skipIf(!POSIX)('creates a 0700 directory and a 0600 file, whatever the umask', async () => {
    const old = process.umask(0o000);
    try {
      await store.set('a', VALUE);
    } finally {
      process.umask(old);
    }
    expect(mode(join(home, 'data'))).toBe(0o700);
    expect(mode(store.path)).toBe(0o600);
  });

  it('replaces the file atomically: a new inode each write, no temp file left behind', async () => {
    await store.set('a', VALUE);
    // Each write's file is made while the one it replaces still exists, so its inode differs from
    // that one's (an inode freed earlier may come back later: only neighbours are compared).
    for (let i = 0; i < 10; i += 1) {
      const before = statSync(store.path).ino;
      await (i === 9 ? store.delete('n3') : store.set(`n${String(i)}`, VALUE));
      expect(statSync(store.path).ino).not.toBe(before);
    }
    expect(readdirSync(join(home, 'data'))).toEqual(['secrets.json']);
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toMatchObject({ version: 1 });
  });

  it('ignores a temp file a crash left behind', async () => {
    await store.set('a', VALUE);
    writeFileSync(join(home, 'data', '.secrets.json.0011223344556677.tmp'), '{"version":1,"secre', { mode: 0o600 });
    expect(await store.get('a')).toBe(VALUE);
  });

  it.skipIf(!POSIX)('refuses to read or write when the file mode is widened', async () => {
    await store.set('a', VALUE);
    chmodSync(store.path, 0o644);
    const error = await refusal(() => store.get('a'), 'insecure_permissions');
    expect(error.message).toContain('0644');
    await refusal(() => store.set('b', 'other-value-1'), 'insecure_permissions', 'other-value-1');
    await refusal(() => store.names(), 'insecure_permissions');
    await refusal(() => store.delete('a'), 'insecure_permissions');
    expect(mode(store.path)).toBe(0o644); // refused, not silently repaired
  });

  it.skipIf(!POSIX)('refuses a directory wider than 0700, even one it did not create', async () => {
    mkdirSync(join(home, 'data'), { mode: 0o755 });
    chmodSync(join(home, 'data'), 0o755);
    await refusal(() => store.set('a', VALUE), 'insecure_permissions');
    await refusal(() => store.get('a'), 'insecure_permissions');
    expect(readdirSync(join(home, 'data'))).toEqual([]);
  });

  it('refuses a secrets file that is a symbolic link', async () => {
    const elsewhere = join(home, 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify({ version: 1, secrets: { a: VALUE } }), { mode: 0o600 });
    mkdirSync(join(home, 'data'), { mode: 0o700 });
    symlinkSync(elsewhere, store.path);
    await refusal(() => store.get('a'), 'unsafe_path');
    await refusal(() => store.set('a', VALUE), 'unsafe_path');
    expect(lstatSync(store.path).isSymbolicLink()).toBe(true);
  });

  it('refuses a data directory that is a symbolic link', async () => {
    const real = join(home, 'real-data');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, join(home, 'data'));
    await refusal(() => store.set('a', VALUE), 'unsafe_path');
    expect(readdirSync(real)).toEqual([]);
  });

  it('refuses a secrets path that is not a regular file', async () => {
    mkdirSync(store.path, { recursive: true, mode: 0o700 });
    chmodSync(join(home, 'data'), 0o700);
    await refusal(() => store.get('a'), 'unsafe_path');
  });

  it.skipIf(!POSIX || process.getuid?.() !== 0)('refuses a file owned by another user', async () => {
    await store.set('a', VALUE);
    chownSync(store.path, 4242, 4242);
    await refusal(() => store.get('a'), 'wrong_owner');
  });

  it.each([
    ['not JSON, holding the value', `{"version":1,"secrets":{"a":"${VALUE}"`],
    ['a wrong version', JSON.stringify({ version: 2, secrets: {} })],
    ['secrets as an array', JSON.stringify({ version: 1, secrets: [VALUE] })],
    ['a non-string value', JSON.stringify({ version: 1, secrets: { a: 1 } })],
    ['an invalid name', JSON.stringify({ version: 1, secrets: { '../x': VALUE } })],
    ['a __proto__ name', `{"version":1,"secrets":{"__proto__":"${VALUE}"}}`],
  ])('refuses a corrupt store: %s, without quoting it', async (_name, content) => {
    mkdirSync(join(home, 'data'), { mode: 0o700 });
    writeFileSync(store.path, content, { mode: 0o600 });
    await refusal(() => store.get('a'), 'corrupt_store');
  });

  it.each(['', '-x', '.hidden', '_probe', 'a b', 'a/b', '../x', 'x'.repeat(65), 'naïve', 'a\n', '__proto__'])('refuses the invalid name %j without echoing it', async (name) => {
    await refusal(() => store.set(name, VALUE), 'invalid_name', name.length > 2 ? name : VALUE);
    await refusal(() => store.get(name), 'invalid_name');
    await refusal(() => store.delete(name), 'invalid_name');
  });

  it('refuses through the promise, never by a synchronous throw', async () => {
    await expect(store.get('../x')).rejects.toMatchObject({ code: 'invalid_name' });
    await expect(store.set('a', '')).rejects.toMatchObject({ code: 'invalid_value' });
    await expect(new KeyringSecretStore(fakeKeyring(), home).delete('../x')).rejects.toMatchObject({ code: 'invalid_name' });
  });

  it('shares one write queue between store objects on the same file', async () => {
    const other = new FileSecretStore(home);
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? store : other).set(`k${i}`, VALUE)));
    expect(await store.names()).toHaveLength(10);
  });

  it('refuses a name that is really a value, without echoing it', async () => {
    await refusal(() => store.get(`sk-${VALUE} `), 'invalid_name', VALUE);
  });

  it.each(['a', 'A1', 'anthropic_api_key', 'x.y-z_0', 'x'.repeat(64)])('accepts the name %s', async (name) => {
    await store.set(name, VALUE);
    expect(await store.get(name)).toBe(VALUE);
  });

  it('refuses empty, non-string and oversized values without echoing them', async () => {
    await refusal(() => store.set('a', ''), 'invalid_value');
    await refusal(() => store.set('a', 42 as unknown as string), 'invalid_value');
    const huge = `${VALUE}${'x'.repeat(70_000)}`;
    await refusal(() => store.set('a', huge), 'invalid_value', huge.slice(0, 40));
  });
});

/** An in-memory keyring: the OS one is not reachable on CI (no D-Bus session). */
function fakeKeyring(overrides: Partial<KeyringBackend> = {}): KeyringBackend & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    label: 'fake keyring',
    entries,
    get: (account) => Promise.resolve(entries.get(account)),
    set: (account, value) => {
      entries.set(account, value);
      return Promise.resolve();
    },
    delete: (account) => Promise.resolve(entries.delete(account)),
    ...overrides,
  };
}

describe('KeyringSecretStore', () => {
  it('keeps values in the keyring and only names under the home', async () => {
    const backend = fakeKeyring();
    const keyring: SecretStore = new KeyringSecretStore(backend, home);
    expect(keyring.kind).toBe('keyring');
    await keyring.set('gh_token', VALUE);
    await keyring.set('a', 'other-value-1');
    expect(await keyring.get('gh_token')).toBe(VALUE);
    expect(await keyring.names()).toEqual(['a', 'gh_token']);
    const indexPath = join(home, 'data', 'secret-names.json');
    expect(readFileSync(indexPath, 'utf8')).not.toContain(VALUE);
    if (POSIX) expect(mode(indexPath)).toBe(0o600);
    expect(await keyring.delete('gh_token')).toBe(true);
    expect(await keyring.delete('gh_token')).toBe(false);
    expect([...backend.entries.keys()]).toEqual(['a']);
    expect(await keyring.names()).toEqual(['a']);
  });

  it('reports keyring failures by name only, never with the native message or the value', async () => {
    const backend = fakeKeyring({
      set: (_account, value) => Promise.reject(new Error(`native failure storing ${value}`)),
      get: () => Promise.reject(new Error(`native failure ${VALUE}`)),
    });
    const keyring = new KeyringSecretStore(backend, home);
    const error = await refusal(() => keyring.set('gh_token', VALUE), 'keyring_failed');
    expect(error.message).toContain('gh_token');
    await refusal(() => keyring.get('gh_token'), 'keyring_failed');
    expect(await keyring.names()).toEqual([]); // a failed store is not listed
  });

  it('refuses invalid names before touching the keyring', async () => {
    const backend = fakeKeyring();
    await refusal(() => new KeyringSecretStore(backend, home).set(PROBE_ACCOUNT, VALUE), 'invalid_name');
    expect(backend.entries.size).toBe(0);
  });
});

describe('openSecretStore', () => {
  it('uses the keyring when the probe round-trips, and cleans the probe up', async () => {
    const backend = fakeKeyring();
    const { store: opened, reason } = await openSecretStore(home, { keyring: () => Promise.resolve(backend) });
    expect(opened.kind).toBe('keyring');
    expect(reason).toContain('fake keyring answered a probe');
    expect(backend.entries.size).toBe(0);
  });

  it('falls back to the file store and says why: binding missing', async () => {
    const { store: opened, reason } = await openSecretStore(home, { keyring: () => Promise.reject(new Error('Cannot find native binding')) });
    expect(opened.kind).toBe('file');
    expect(reason).toContain('the keyring binding did not load (Cannot find native binding)');
    expect(reason).toContain(join(home, 'data', 'secrets.json'));
  });

  it('falls back and names the missing D-Bus session when the probe fails on Linux', async () => {
    const backend = fakeKeyring({ set: () => Promise.reject(new Error('Platform failure: DBus error')) });
    const { store: opened, reason } = await openSecretStore(home, { keyring: () => Promise.resolve(backend), env: {} });
    expect(opened.kind).toBe('file');
    if (process.platform === 'linux') expect(reason).toContain('no D-Bus session bus');
    expect(reason).toContain('Platform failure: DBus error');
  });

  it('falls back when the keyring returns something else, or never answers', async () => {
    const liar = fakeKeyring({ get: () => Promise.resolve('stale') });
    expect((await openSecretStore(home, { keyring: () => Promise.resolve(liar), env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x' } })).reason).toContain('did not return the probe value');
    const hang = fakeKeyring({ set: () => new Promise<void>(() => undefined) });
    const opened = await openSecretStore(home, { keyring: () => Promise.resolve(hang), probeTimeoutMs: 50 });
    expect(opened.store.kind).toBe('file');
    expect(opened.reason).toContain('no answer within 50 ms');
  });

  it('gives an honest reason on this host, probing the real keyring', async () => {
    const { store: opened, reason } = await openSecretStore(home);
    expect(reason.length).toBeGreaterThan(20);
    if (process.platform === 'linux' && (process.env['DBUS_SESSION_BUS_ADDRESS'] ?? '') === '') {
      expect(opened.kind).toBe('file');
      expect(reason).toContain('no D-Bus session bus');
    }
    // Never writes to a developer's real keyring: only the temp-home file store is exercised.
    if (opened.kind === 'file') {
      await opened.set('roundtrip', VALUE);
      expect(await opened.get('roundtrip')).toBe(VALUE);
    }
  });
});
