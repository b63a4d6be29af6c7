import type * as Keyring from '@napi-rs/keyring';
import { lazyModule } from '../lazy-module.js';
import type { KeyringBackend } from './keyring-store.js';
import { KEYRING_SERVICE } from './keyring-store.js';

/** The native binding, loaded when the store is first opened (never by the hook). */
const keyring = lazyModule<typeof Keyring>('@napi-rs/keyring');

/**
 * The OS keyring through `@napi-rs/keyring` (a prebuilt native module shipped in the npm
 * package; nothing is built or downloaded at install): Windows Credential Manager, the macOS
 * Keychain, or the freedesktop Secret Service on Linux and BSD.
 *
 * On Linux the binding's default falls back from the Secret Service to the kernel keyring
 * (keyutils), which lives only as long as the login session, and whose read reports a refused
 * access as "no such entry": secrets would vanish at logout and failures would look like
 * absence. The store is therefore pinned to the Secret Service; where there is none, the probe
 * fails and ORACLE says so and uses the file store (SPEC §6).
 */

/** Long enough for a user to answer an unlock prompt; a dead D-Bus call must not hang a tool. */
const OPERATION_TIMEOUT_MS = 60_000;

const LABELS: Partial<Record<NodeJS.Platform, string>> = {
  win32: 'Windows Credential Manager',
  darwin: 'macOS Keychain',
  linux: 'Secret Service (D-Bus)',
  freebsd: 'Secret Service (D-Bus)',
  openbsd: 'Secret Service (D-Bus)',
};

/** Loads the native binding; throws when it is missing or does not load on this platform. */
export function loadNapiKeyring(): KeyringBackend {
  const { AsyncEntry } = keyring();
  const options = process.platform === 'win32' || process.platform === 'darwin' ? undefined : { linux: { store: 'secret-service' as const } };
  const entry = (account: string) => new AsyncEntry(KEYRING_SERVICE, account, options);
  const signal = () => AbortSignal.timeout(OPERATION_TIMEOUT_MS);
  return {
    label: LABELS[process.platform] ?? 'OS keyring',
    get: async (account) => (await entry(account).getPassword(signal())) ?? undefined,
    set: (account, value) => entry(account).setPassword(value, signal()),
    delete: (account) => entry(account).deletePassword(signal()),
  };
}
