import { canonicalJson } from '../../../shared/canonical-json.js';

/**
 * The audit record and its hash chain (SPEC §7, seed 001 "Audit"): each record's hash covers
 * the previous hash and the record body, in RFC 8785 canonical JSON, so editing, removing or
 * reordering any record breaks the chain. Pure: hashing is passed in.
 */
export const AUDIT_KINDS = [
  'policy.load',
  'decision',
  'dispatched',
  'succeeded',
  'failed',
  /** Written on the next start for an action dispatched when the gate died (never finished). */
  'interrupted',
  /** The caller withdrew the action (MCP `notifications/cancelled`, a dropped connection): stopped, its job killed. */
  'cancelled',
  'undo',
  'job.cleanup',
  /** A job made names no agent may write: moved to ORACLE's trash after it (toolhost/planted.ts). */
  'job.planted',
  'audit.repair',
  'halt',
  'resume',
  'approval',
  'pairing',
  'egress',
  'secret.access',
  /** Failed credential checks, counted per credential id over a minute (never one record each). */
  'auth.failures',
  /** An agent's proposed policy change: proposed, activated (with both digests) or discarded (issue 16). */
  'policy.candidate',
  /** A person opened or closed one of the gate's terminals; HALT killed one (issue 16). */
  'terminal',
] as const;

export type AuditKind = (typeof AUDIT_KINDS)[number];

/** What a caller appends; `seq`, `prev` and `hash` are added when the record is sealed. */
export interface AuditBody {
  readonly kind: AuditKind;
  readonly ts: string;
  readonly actor: string;
  readonly action_id?: string;
  readonly session?: string;
  readonly tool?: string;
  /** SHA-256 of the canonical arguments; arguments themselves never enter the log. */
  readonly args_digest?: string;
  /** A redacted, bounded preview of the arguments. */
  readonly args_preview?: string;
  readonly tier?: string;
  readonly decision?: string;
  readonly code?: string | null;
  readonly rule?: string;
  readonly reasons?: readonly string[];
  readonly outcome?: string;
  readonly duration_ms?: number;
  readonly detail?: Readonly<Record<string, unknown>>;
}

export interface AuditRecord extends AuditBody {
  readonly seq: number;
  readonly prev: string;
  readonly hash: string;
}

export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

export const GENESIS: ChainHead = { seq: 0, hash: `sha256:${'0'.repeat(64)}` };

export type Sha256Hex = (text: string) => string;

/** RFC 8785 canonical JSON; a value JSON cannot represent is a caller bug. */
export { canonicalJson };

export function sealRecord(body: AuditBody, head: ChainHead, sha256: Sha256Hex): AuditRecord {
  return sealRecordLine(body, head, sha256).record;
}

/**
 * The sealed record and the line that stores it: the canonical JSON its hash covers, with the
 * hash as its last member (JSON's member order is free; readers parse the line and recompute
 * the hash from its fields). One serialisation per record instead of two.
 */
export function sealRecordLine(body: AuditBody, head: ChainHead, sha256: Sha256Hex): { readonly record: AuditRecord; readonly line: string } {
  const unsealed = { ...body, seq: head.seq + 1, prev: head.hash };
  const canonical = canonicalJson(unsealed);
  const hash = `sha256:${sha256(canonical)}`;
  return { record: { ...unsealed, hash }, line: `${canonical.slice(0, -1)},"hash":"${hash}"}` };
}

/** Recomputes a record's hash from its own fields (for verify and for reading the head back). */
export function recomputeHash(record: AuditRecord, sha256: Sha256Hex): string {
  const { hash, ...unsealed } = record;
  return `sha256:${sha256(canonicalJson(unsealed))}`;
}

/** `logs/audit/YYYY-MM.jsonl`: the month of the record's own timestamp, in UTC. */
export function monthFileName(ts: string): string {
  return `${ts.slice(0, 7)}.jsonl`;
}
