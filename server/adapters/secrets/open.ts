import { randomBytes } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import { FileSecretStore } from './file-store.js';
import { NameIndex } from './name-index.js';
import { KeyringSecretStore, type KeyringBackend } from './keyring-store.js';
import { loadNapiKeyring } from './napi-keyring.js';
import type { SecretStore } from './store.js';

/**
 * Picks the store of SPEC §6 and says why: the OS keyring when a harmless probe entry can be
 * written, read back and deleted, else the file store. The reason is meant for the operator
 * (`oracle serve` prints it), so it names what was missing rather than just "unavailable".
 */

export interface OpenSecretStoreOptions {
  /** Loads the keyring binding; tests pass fakes. Default: `@napi-rs/keyring`. */
  readonly keyring?: () => Promise<KeyringBackend>;
  readonly probeTimeoutMs?: number;
  /** Environment consulted for the D-Bus session address. Default: `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Not a valid secret name (leading `_`), so the probe can never touch a user's secret. */
export const PROBE_ACCOUNT = '_probe';
const PROBE_TIMEOUT_MS = 5_000;
/** Native messages can be long; the reason is one line. */
const MAX_DETAIL = 200;

function detail(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  const line = (text.split('\n')[0] ?? '').trim();
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL)}…` : line;
}

async function withTimeout<T>(op: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`no answer within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([op, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Write, read back, compare, delete. Any step failing means the keyring cannot be relied on. */
async function probe(backend: KeyringBackend, ms: number): Promise<string | undefined> {
  // A random value: the probe proves a round trip, not merely that a stale entry exists.
  const value = `oracle-probe-${randomBytes(16).toString('hex')}`;
  try {
    await withTimeout(backend.set(PROBE_ACCOUNT, value), ms);
    const back = await withTimeout(backend.get(PROBE_ACCOUNT), ms);
    await withTimeout(backend.delete(PROBE_ACCOUNT), ms);
    return back === value ? undefined : 'the keyring did not return the probe value it had just stored';
  } catch (e) {
    return detail(e);
  }
}

/** On Linux and BSD the usual cause, stated plainly before the binding's own words. */
function probeFailure(backend: KeyringBackend, failure: string, env: Readonly<Record<string, string | undefined>>): string {
  const address = env['DBUS_SESSION_BUS_ADDRESS'];
  const noBus = process.platform !== 'win32' && process.platform !== 'darwin' && (address === undefined || address === '');
  if (noBus) return `no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset), so no Secret Service (probe: ${failure})`;
  return `${backend.label} failed a probe (${failure})`;
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

export async function openSecretStore(home: string, options: OpenSecretStoreOptions = {}): Promise<{ store: SecretStore; reason: string }> {
  const file = new FileSecretStore(home);
  const index = new NameIndex(home);
  const fallback = async (why: string) => {
    // Honesty about what the choice hides: names set while the keyring was reachable.
    const hidden = (await exists(index.path)) ? `; secrets stored in the keyring earlier (listed in ${index.path}) are not available` : '';
    return { store: file, reason: `OS keyring not used: ${why}; using the ${file.description}${hidden}` };
  };
  let backend: KeyringBackend;
  try {
    backend = await (options.keyring ?? loadNapiKeyring)();
  } catch (e) {
    return fallback(`the keyring binding did not load (${detail(e)})`);
  }
  const failure = await probe(backend, options.probeTimeoutMs ?? PROBE_TIMEOUT_MS);
  if (failure !== undefined) return fallback(probeFailure(backend, failure, options.env ?? process.env));
  const store = new KeyringSecretStore(backend, home);
  const shadowed = (await exists(file.path)) ? `; the file store at ${file.path} also exists and is not read` : '';
  return { store, reason: `${backend.label} answered a probe entry; using the keyring${shadowed}` };
}
