import { SecretStoreError } from './errors.js';
import { NameIndex } from './name-index.js';
import { assertSecretName, assertSecretValue } from './names.js';
import { serialFor, type Serial } from './serial.js';
import type { SecretStore } from './store.js';

/** The keyring service every ORACLE entry is filed under; the account is the secret's name. */
export const KEYRING_SERVICE = 'oracle';

/** The few keyring operations the store needs; the OS binding and test fakes both provide them. */
export interface KeyringBackend {
  /** What answers, e.g. `Secret Service (D-Bus)`: shown in the store's description. */
  readonly label: string;
  get(account: string): Promise<string | undefined>;
  set(account: string, value: string): Promise<void>;
  /** True when an entry existed. */
  delete(account: string): Promise<boolean>;
}

/**
 * The preferred store of SPEC §6: values in the OS keyring (service `oracle`), names in a
 * `NameIndex` under the home. Keyring errors are reported by operation and name only: a native
 * message is not ours to vouch for, so it never reaches a caller who might log it.
 */
export class KeyringSecretStore implements SecretStore {
  readonly kind = 'keyring' as const;
  readonly description: string;
  private readonly index: NameIndex;
  private readonly serial: Serial;

  constructor(
    private readonly backend: KeyringBackend,
    home: string,
  ) {
    this.index = new NameIndex(home);
    this.serial = serialFor(this.index.path);
    this.description = `${backend.label}, service "${KEYRING_SERVICE}"; names listed in ${this.index.path}`;
  }

  async get(name: string): Promise<string | undefined> {
    assertSecretName(name);
    return await this.call('read', name, () => this.backend.get(name));
  }

  async set(name: string, value: string): Promise<void> {
    assertSecretName(name);
    assertSecretValue(value);
    await this.serial.run(async () => {
      await this.call('store', name, () => this.backend.set(name, value));
      const names = await this.index.read();
      if (!names.has(name)) await this.index.write(names.add(name));
    });
  }

  async delete(name: string): Promise<boolean> {
    assertSecretName(name);
    return await this.serial.run(async () => {
      const existed = await this.call('delete', name, () => this.backend.delete(name));
      const names = await this.index.read();
      const listed = names.delete(name);
      if (listed) await this.index.write(names);
      return existed || listed;
    });
  }

  async names(): Promise<string[]> {
    return await this.serial.run(async () => [...(await this.index.read())].sort());
  }

  private async call<T>(what: string, name: string, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch {
      throw new SecretStoreError('keyring_failed', `the keyring could not ${what} the secret \`${name}\``);
    }
  }
}
