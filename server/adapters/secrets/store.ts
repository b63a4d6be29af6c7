/**
 * Where secrets live (SPEC §6): the OS keyring when one is reachable, else a 0600 file under the
 * home. Callers refer to secrets by name; a value leaves a store only towards a tool that declares
 * secret.read, never towards the model, logs, events, previews or the audit log.
 */
export interface SecretStore {
  readonly kind: 'keyring' | 'file';
  /** Where the secrets live, for `oracle` status output; never contains a value. */
  readonly description: string;
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  /** True when a secret of that name existed. */
  delete(name: string): Promise<boolean>;
  /** Sorted. */
  names(): Promise<string[]>;
}
