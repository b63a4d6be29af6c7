/** Secret storage (SPEC §6): the OS keyring when reachable, else a 0600 file under the home. */
export type { SecretStore } from './store.js';
export { SecretStoreError, SECRET_STORE_ERROR_CODES, type SecretStoreErrorCode } from './errors.js';
export { SECRET_NAME, MAX_SECRET_BYTES, isSecretName } from './names.js';
export { FileSecretStore } from './file-store.js';
export { KeyringSecretStore, KEYRING_SERVICE, type KeyringBackend } from './keyring-store.js';
export { loadNapiKeyring } from './napi-keyring.js';
export { openSecretStore, PROBE_ACCOUNT, type OpenSecretStoreOptions } from './open.js';
