import { join } from 'node:path';
import { SecretStoreError } from './errors.js';
import { isSecretName } from './names.js';
import { checkPrivateDir, readPrivateFile, writePrivateFile } from './private-file.js';

/**
 * OS keyrings cannot be listed portably (Secret Service can search by attribute, Windows
 * Credential Manager by target prefix, the macOS Keychain hardly at all), so the keyring store
 * keeps the list of its names here: `<home>/data/secret-names.json`, names only, same 0600/0700
 * rules as the file store. It is kept beside the home rather than in a keyring entry because
 * Windows caps a credential at 2,560 bytes, too small for a long list.
 *
 * Order of writes: the value goes to the keyring before its name is added here, and a name is
 * removed here after its value is deleted, so a crash in between leaves at worst a value whose
 * name is not listed (set it again to list it), never a listed name without a value.
 */

const FILE_NAME = 'secret-names.json';

export class NameIndex {
  readonly dir: string;
  readonly path: string;

  constructor(home: string) {
    this.dir = join(home, 'data');
    this.path = join(this.dir, FILE_NAME);
  }

  async read(): Promise<Set<string>> {
    if (!(await checkPrivateDir(this.dir, false))) return new Set();
    const text = await readPrivateFile(this.path);
    if (text === undefined) return new Set();
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new SecretStoreError('corrupt_store', `\`${this.path}\` is not valid JSON`);
    }
    if (!Array.isArray(doc) || !doc.every(isSecretName)) throw new SecretStoreError('corrupt_store', `\`${this.path}\` is not a list of secret names`);
    return new Set(doc);
  }

  async write(names: ReadonlySet<string>): Promise<void> {
    await checkPrivateDir(this.dir, true);
    await writePrivateFile(this.dir, FILE_NAME, `${JSON.stringify([...names].sort(), null, 2)}\n`);
  }
}
