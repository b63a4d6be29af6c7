import { join } from 'node:path';
import { SecretStoreError } from './errors.js';
import { assertSecretName, assertSecretValue, isSecretName } from './names.js';
import { checkPrivateDir, readPrivateFile, writePrivateFile } from './private-file.js';
import { serialFor, type Serial } from './serial.js';
import type { SecretStore } from './store.js';

/**
 * The fallback store of SPEC §6: `<home>/data/secrets.json`, 0600 in a 0700 directory, written
 * atomically, refused when its permissions or owner are wrong. Format:
 * `{ "version": 1, "secrets": { "<name>": "<value>" } }`.
 */

const FILE_NAME = 'secrets.json';
const FORMAT_VERSION = 1;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Parses the file strictly, field by field. Error messages never quote the content: JSON.parse's
 * own message does (`Unexpected token … "…" is not valid JSON`), so it is dropped.
 */
function parseSecrets(text: string, path: string): Map<string, string> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new SecretStoreError('corrupt_store', `\`${path}\` is not valid JSON`);
  }
  if (!isPlainObject(doc) || doc['version'] !== FORMAT_VERSION) throw new SecretStoreError('corrupt_store', `\`${path}\` is not a version ${FORMAT_VERSION} secret store`);
  const secrets = doc['secrets'];
  if (!isPlainObject(secrets)) throw new SecretStoreError('corrupt_store', `\`${path}\` has no secrets object`);
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(secrets)) {
    if (!isSecretName(name)) throw new SecretStoreError('corrupt_store', `\`${path}\` holds an entry with an invalid name`);
    if (typeof value !== 'string') throw new SecretStoreError('corrupt_store', `\`${path}\` holds a non-string value for \`${name}\``);
    out.set(name, value);
  }
  return out;
}

function serialise(secrets: ReadonlyMap<string, string>): string {
  const sorted = [...secrets.keys()].sort();
  return `${JSON.stringify({ version: FORMAT_VERSION, secrets: Object.fromEntries(sorted.map((n) => [n, secrets.get(n)])) }, null, 2)}\n`;
}

export class FileSecretStore implements SecretStore {
  readonly kind = 'file' as const;
  readonly description: string;
  readonly dir: string;
  readonly path: string;
  // INVARIANT: every read-modify-write runs through this queue (no lost updates in one process).
  private readonly serial: Serial;

  constructor(home: string) {
    this.dir = join(home, 'data');
    this.path = join(this.dir, FILE_NAME);
    this.serial = serialFor(this.path);
    this.description = `file store at ${this.path} (0600 file in a 0700 directory)`;
  }

  // Methods are async so that a refused argument is a rejected promise, never a synchronous throw.
  async get(name: string): Promise<string | undefined> {
    assertSecretName(name);
    return await this.serial.run(async () => (await this.load(false)).get(name));
  }

  async set(name: string, value: string): Promise<void> {
    assertSecretName(name);
    assertSecretValue(value);
    await this.serial.run(async () => {
      const secrets = await this.load(true);
      secrets.set(name, value);
      await writePrivateFile(this.dir, FILE_NAME, serialise(secrets));
    });
  }

  async delete(name: string): Promise<boolean> {
    assertSecretName(name);
    return await this.serial.run(async () => {
      const secrets = await this.load(false);
      if (!secrets.delete(name)) return false;
      await writePrivateFile(this.dir, FILE_NAME, serialise(secrets));
      return true;
    });
  }

  async names(): Promise<string[]> {
    return await this.serial.run(async () => [...(await this.load(false)).keys()].sort());
  }

  /** Reads the store after checking the directory; a store that does not exist yet is empty. */
  private async load(create: boolean): Promise<Map<string, string>> {
    if (!(await checkPrivateDir(this.dir, create))) return new Map();
    const text = await readPrivateFile(this.path);
    return text === undefined ? new Map() : parseSecrets(text, this.path);
  }
}
