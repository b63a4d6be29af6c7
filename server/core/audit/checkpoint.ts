import { canonicalJson, GENESIS, type ChainHead } from './record.js';

/**
 * The signed checkpoint (SPEC §7; seed 001 "Audit": "the head is anchored outside the file (a
 * signed checkpoint) so truncation and wholesale rewrite are detectable"). The hash chain alone
 * shows an edit, a deletion or a reorder inside the log; it cannot show that the last N records
 * were cut off, or that the whole chain was rebuilt from some record on with recomputed hashes.
 * `<home>/data/audit-checkpoint.json` names the head `{seq, hash}` the appender last made
 * durable, signed with a key that lives beside it, never in the log directory.
 *
 * Design note (threat model): an attacker who can write ORACLE's home can read the key and
 * re-sign, and one who can replace the checkpoint file can roll it back to an older, validly
 * signed copy. The home is kept from agents by the gate (deny_always.oracle_home, SPEC §3), so the
 * checkpoint defends against edits by anything that can touch the log file but not the data
 * directory, and against accidental truncation or rewrite (a restore from backup, a bad tool).
 *
 * Pure: signing and verifying are passed in (SPEC §2: core does no crypto I/O).
 */
export interface Checkpoint {
  readonly seq: number;
  readonly hash: string;
  /** When the checkpoint was signed (not the record's own ts). */
  readonly ts: string;
  readonly key_id: string;
  /** base64url signature over `checkpointMessage`. */
  readonly sig: string;
}

export interface CheckpointSigner {
  readonly keyId: string;
  readonly sign: (message: string) => string;
}

export interface CheckpointVerifier {
  readonly keyId: string;
  readonly verify: (message: string, sig: string) => boolean;
}

/** `sha256:` and 64 lower-case hex digits: the form of every `prev` and `hash` in the chain. */
export const CHAIN_HASH = /^sha256:[0-9a-f]{64}$/u;
const KEY_ID = /^[a-z0-9]+:[0-9a-f]{64}$/u;
const SIG = /^[A-Za-z0-9_-]{1,1024}$/u;
const ISO_TS = /^\d{4}-\d{2}-\d{2}T[0-9:.]{8,18}Z$/u;
const FIELDS = ['seq', 'hash', 'ts', 'key_id', 'sig'] as const;
/** Domain separation: this key signs nothing else, but a signature must never be reusable as one. */
const DOMAIN = 'oracle.audit.checkpoint.v1';

/** The exact bytes that are signed: RFC 8785 canonical JSON of every field but `sig`. */
export function checkpointMessage(fields: Omit<Checkpoint, 'sig'>): string {
  return canonicalJson({ domain: DOMAIN, seq: fields.seq, hash: fields.hash, ts: fields.ts, key_id: fields.key_id });
}

/**
 * A fresh log is anchored at GENESIS (seq 0) before its first record is written, so a log with
 * records and no checkpoint never happens legitimately: a deleted checkpoint cannot pass for new.
 */
export function signCheckpoint(head: ChainHead, ts: string, signer: CheckpointSigner): Checkpoint {
  if (!Number.isSafeInteger(head.seq) || head.seq < 0 || (head.seq === 0 && head.hash !== GENESIS.hash)) throw new TypeError('not a chain head');
  const fields = { seq: head.seq, hash: head.hash, ts, key_id: signer.keyId };
  return { ...fields, sig: signer.sign(checkpointMessage(fields)) };
}

export type CheckpointParse = { readonly ok: true; readonly checkpoint: Checkpoint } | { readonly ok: false; readonly reason: string };

/** Untrusted text from disk, checked field by field in order: a plain object with exactly FIELDS. */
export function parseCheckpoint(text: string): CheckpointParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'the checkpoint is not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'the checkpoint is not a JSON object' };
  const record = value as Record<string, unknown>;
  const extra = Object.keys(record).find((k) => !(FIELDS as readonly string[]).includes(k));
  if (extra !== undefined) return { ok: false, reason: `the checkpoint has an unknown field \`${extra}\`` };
  const { seq, hash, ts, key_id: keyId, sig } = record;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) return { ok: false, reason: '`seq` is not a non-negative integer' };
  if (typeof hash !== 'string' || !CHAIN_HASH.test(hash)) return { ok: false, reason: '`hash` is not a sha256 chain hash' };
  if (typeof ts !== 'string' || !ISO_TS.test(ts)) return { ok: false, reason: '`ts` is not an ISO 8601 UTC time' };
  if (typeof keyId !== 'string' || !KEY_ID.test(keyId)) return { ok: false, reason: '`key_id` is malformed' };
  if (typeof sig !== 'string' || !SIG.test(sig)) return { ok: false, reason: '`sig` is not base64url' };
  return { ok: true, checkpoint: { seq, hash, ts, key_id: keyId, sig } };
}

export type SignatureCheck = 'valid' | 'wrong_key' | 'bad_signature';

export function checkSignature(checkpoint: Checkpoint, verifier: CheckpointVerifier): SignatureCheck {
  // A checkpoint signed by another key is refused even if that key's signature is sound.
  if (checkpoint.key_id !== verifier.keyId) return 'wrong_key';
  const { sig, ...fields } = checkpoint;
  return verifier.verify(checkpointMessage(fields), sig) ? 'valid' : 'bad_signature';
}
