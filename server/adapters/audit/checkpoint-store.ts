import { OracleError } from '../../../shared/oracle-error.js';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import { closeSync, constants, fstatSync, fsyncSync, linkSync, lstatSync, openSync, readdirSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { checkSignature, parseCheckpoint, signCheckpoint, type Checkpoint, type CheckpointSigner, type CheckpointVerifier } from '../../core/audit/checkpoint.js';
import type { ChainHead } from '../../core/audit/record.js';
import { CHECKPOINT_LAG_MS } from '../../core/audit/verify.js';
import { ensurePrivateDir } from '../files.js';

/**
 * The signed checkpoint on disk (SPEC §7; the format and its threat model are in
 * core/audit/checkpoint.ts): `<home>/data/audit-checkpoint.json`, signed with the Ed25519 key in
 * `<home>/data/audit-signing.key` (PKCS#8 PEM, 0600, created on first use; `data/` is 0700).
 */
export const CHECKPOINT_FILE = 'audit-checkpoint.json';
export const SIGNING_KEY_FILE = 'audit-signing.key';

const NOFOLLOW = constants.O_NOFOLLOW;
const POSIX = typeof process.getuid === 'function';
const MAX_FILE_BYTES = 16 * 1024;
const STALE_TEMP_MS = 60_000;
/**
 * The most often the head is checkpointed; the first flush after a quiet spell (an interval with
 * no checkpoint) is checkpointed at once. Records cut from the log's tail within this window
 * (plus the write in flight) are not caught by the checkpoint; see AuditAppender. verify.ts
 * names records past the checkpoint UNSIGNED_TAIL.
 */
export const CHECKPOINT_INTERVAL_MS = CHECKPOINT_LAG_MS;
const TEMP = /^\.audit-checkpoint\.json\.[0-9a-f]{16}\.tmp$/u;

export class AuditCheckpointError extends OracleError<'AUDIT_CHECKPOINT_FAILED'> {
  constructor(message: string) {
    super('AUDIT_CHECKPOINT_FAILED', message);
  }
}

const errno = (e: unknown): string => (e as NodeJS.ErrnoException | undefined)?.code ?? (e instanceof Error ? e.message : 'unknown error');

/**
 * Reads a small private file without following links; undefined when it does not exist. A file
 * someone else owns or may read is refused, not repaired (fail closed, SPEC §1.2).
 */
function readPrivate(path: string, privateMode: boolean): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW);
  } catch (e) {
    if (errno(e) === 'ENOENT') return undefined;
    throw new AuditCheckpointError(`cannot open \`${path}\`: ${errno(e)}`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new AuditCheckpointError(`\`${path}\` is not a regular file`);
    if (POSIX && stats.uid !== process.getuid?.()) throw new AuditCheckpointError(`\`${path}\` is not owned by the current user`);
    if (POSIX && privateMode && (stats.mode & 0o077) !== 0) throw new AuditCheckpointError(`\`${path}\` has mode ${(stats.mode & 0o777).toString(8)}; it must be 600`);
    if (stats.size > MAX_FILE_BYTES) throw new AuditCheckpointError(`\`${path}\` is larger than ${MAX_FILE_BYTES} bytes`);
    const buffer = Buffer.alloc(stats.size);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function syncDirSync(dir: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** `ed25519:` and the SHA-256 of the public key's SPKI DER. */
function keyIdOf(publicKey: KeyObject): string {
  return `ed25519:${createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex')}`;
}

function parseKey(pem: string, path: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new AuditCheckpointError(`\`${path}\` is not a PEM private key`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new AuditCheckpointError(`\`${path}\` is not an Ed25519 key`);
  return key;
}

/**
 * Creates the key once: written to a private temp file, fsynced, then hard-linked into place, so
 * a second process racing us either wins (we read its key) or loses; nobody sees half a key.
 */
function createKey(dir: string, path: string): KeyObject {
  const { privateKey } = generateKeyPairSync('ed25519');
  const temp = join(dir, `.${SIGNING_KEY_FILE}.${randomBytes(8).toString('hex')}.tmp`);
  try {
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
    try {
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' });
      const bytes = Buffer.from(pem);
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(temp, path);
  } catch (e) {
    if (errno(e) !== 'EEXIST') throw new AuditCheckpointError(`cannot create \`${path}\`: ${errno(e)}`);
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // never created
    }
  }
  syncDirSync(dir);
  const pem = readPrivate(path, true);
  if (pem === undefined) throw new AuditCheckpointError(`\`${path}\` vanished while it was created`);
  return parseKey(pem, path);
}

export function signerFor(key: KeyObject): CheckpointSigner {
  return { keyId: keyIdOf(createPublicKey(key)), sign: (message) => sign(null, Buffer.from(message, 'utf8'), key).toString('base64url') };
}

export function verifierFor(key: KeyObject): CheckpointVerifier {
  const publicKey = createPublicKey(key);
  return {
    keyId: keyIdOf(publicKey),
    verify: (message, sig) => {
      const bytes = Buffer.from(sig, 'base64url');
      // Strict decoding (STYLE 7): the text must be exactly the canonical encoding of the bytes.
      return bytes.toString('base64url') === sig && verify(null, Buffer.from(message, 'utf8'), publicKey, bytes);
    },
  };
}

export type KeyLoad = { readonly ok: true; readonly verifier: CheckpointVerifier } | { readonly ok: false; readonly reason: string; readonly present: boolean };

/** For `oracle audit verify`: never creates anything; the public key is derived from the key file. */
export function loadVerifier(dataDir: string): KeyLoad {
  const path = join(dataDir, SIGNING_KEY_FILE);
  try {
    const pem = readPrivate(path, true);
    if (pem === undefined) return { ok: false, reason: `the signing key \`${path}\` is missing`, present: false };
    return { ok: true, verifier: verifierFor(parseKey(pem, path)) };
  } catch (e) {
    // It is there (a link, another owner, a bad mode or not a key): a log was started with a key.
    return { ok: false, reason: e instanceof Error ? e.message : 'the signing key is unusable', present: true };
  }
}

/** The checkpoint file's text, or undefined when there is none. */
export function readCheckpointText(dataDir: string): string | undefined {
  return readPrivate(join(dataDir, CHECKPOINT_FILE), false);
}

export type CheckpointState = { readonly state: 'absent' } | { readonly state: 'valid'; readonly checkpoint: Checkpoint } | { readonly state: 'invalid'; readonly reason: string };

/**
 * The appender's side: holds the key, writes one checkpoint per flush, coalesced (at most one
 * write in flight; a newer head replaces a waiting one), so signing never slows group commit.
 */
export class CheckpointStore {
  private wanted: ChainHead | undefined;
  private running: Promise<void> | undefined;
  /** Ends the pause between two checkpoints now (close, repair, a caller waiting on idle()). */
  private hurry: (() => void) | undefined;
  /** Callers waiting in idle(): while any waits, no pause starts (a hook process exits at once). */
  private waiting = 0;
  private failed: Error | undefined;

  /** The signing key was here before this open (it is made with the first log). */
  readonly keyExisted: boolean;
  private readonly signer: CheckpointSigner;
  private readonly verifier: CheckpointVerifier;

  private constructor(
    readonly dir: string,
    key: { readonly signer: CheckpointSigner; readonly verifier: CheckpointVerifier; readonly existed: boolean },
    private readonly now: () => Date,
  ) {
    this.keyExisted = key.existed;
    this.signer = key.signer;
    this.verifier = key.verifier;
  }

  static open(dataDir: string, now: () => Date = () => new Date()): CheckpointStore {
    try {
      ensurePrivateDir(dataDir);
      const path = join(dataDir, SIGNING_KEY_FILE);
      const pem = readPrivate(path, true);
      const key = pem === undefined ? createKey(dataDir, path) : parseKey(pem, path);
      removeStaleTemps(dataDir, now().getTime());
      return new CheckpointStore(dataDir, { signer: signerFor(key), verifier: verifierFor(key), existed: pem !== undefined }, now);
    } catch (e) {
      if (e instanceof AuditCheckpointError) throw e;
      throw new AuditCheckpointError(`cannot open the audit signing key in \`${dataDir}\`: ${errno(e)}`);
    }
  }

  /** The checkpoint on disk, its signature checked with our own key. */
  read(): CheckpointState {
    const text = readCheckpointText(this.dir);
    if (text === undefined) return { state: 'absent' };
    const parsed = parseCheckpoint(text);
    if (!parsed.ok) return { state: 'invalid', reason: parsed.reason };
    const signature = checkSignature(parsed.checkpoint, this.verifier);
    if (signature !== 'valid') return { state: 'invalid', reason: signature === 'wrong_key' ? 'the checkpoint was signed by another key' : 'the checkpoint signature does not verify' };
    return { state: 'valid', checkpoint: parsed.checkpoint };
  }

  /** The first write failure, if any; the appender then refuses every append (fail closed). */
  get failure(): Error | undefined {
    return this.failed;
  }

  /** After the log recovered from a failed write: the next update tries to write again. */
  retry(): void {
    this.failed = undefined;
  }

  /** Asks for `head` to be checkpointed. INVARIANT: called only once `head` is fsynced in the log. */
  update(head: ChainHead): void {
    this.wanted = head;
    this.running ??= this.drain();
  }

  /** Resolves when every requested checkpoint is on disk (or the store has failed); no pause. */
  async idle(): Promise<void> {
    this.waiting += 1;
    try {
      while (this.running !== undefined) {
        this.hurry?.();
        await this.running;
      }
    } finally {
      this.waiting -= 1;
    }
  }

  private async drain(): Promise<void> {
    try {
      for (let head = this.wanted; head !== undefined && this.failed === undefined; head = this.wanted) {
        this.wanted = undefined;
        await this.write(signCheckpoint(head, this.now().toISOString(), this.signer));
        // At most one checkpoint per interval: one signature, temp file, fsync and rename cost more
        // than the flush they follow (with one agent, every action was a quiet spell of its own).
        // The head after the pause covers everything that came in it; none came: the drain ends,
        // and the next head, an interval or more after this write, is checkpointed at once.
        await this.pause();
      }
    } catch (e) {
      this.failed = new AuditCheckpointError(`cannot write the audit checkpoint: ${errno(e)}`);
    } finally {
      this.running = undefined;
    }
  }

  private pause(): Promise<void> {
    // Someone waits for the checkpoint (close, a repair): write the next one now, not in 100 ms.
    if (this.waiting > 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.hurry = undefined;
        resolve();
      };
      const timer = setTimeout(done, CHECKPOINT_INTERVAL_MS);
      this.hurry = done;
    });
  }

  /** Atomic replace: temp file (O_EXCL, 0600) written and fsynced, renamed, directory fsynced. */
  private async write(checkpoint: Checkpoint): Promise<void> {
    const target = join(this.dir, CHECKPOINT_FILE);
    const temp = join(this.dir, `.${CHECKPOINT_FILE}.${randomBytes(8).toString('hex')}.tmp`);
    try {
      const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
      try {
        await handle.writeFile(JSON.stringify(checkpoint) + '\n', { encoding: 'utf8' });
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
      if (process.platform !== 'win32') {
        const dir = await open(this.dir, constants.O_RDONLY | constants.O_DIRECTORY);
        try {
          await dir.sync();
        } finally {
          await dir.close();
        }
      }
    } catch (e) {
      await unlink(temp).catch(() => undefined);
      throw e;
    }
  }
}

/** A crash between creating and renaming a temp file leaves it behind; old ones are removed. */
function removeStaleTemps(dir: string, now: number): void {
  for (const name of readdirSync(dir)) {
    if (!TEMP.test(name)) continue;
    const path = join(dir, name);
    try {
      if (now - lstatSync(path).mtimeMs > STALE_TEMP_MS) unlinkSync(path);
    } catch {
      // another process may have removed it first
    }
  }
}
