import { findAssignments } from './assignments.js';
import { RedactionError } from './errors.js';
import { findKnown } from './known.js';
import type { Redaction } from './kinds.js';
import { findPatterns } from './patterns.js';
import { mergeSpans, Redacted } from './spans.js';

/**
 * The one redaction sink of SPEC §6, applied to logs, events, approval and audit previews and
 * outbound payloads. Pure: no I/O, no clock, no randomness (SPEC §2).
 */
export interface RedactResult {
  readonly text: string;
  /** Sorted, disjoint; offsets into the original text. */
  readonly redactions: readonly Redaction[];
}

/**
 * Known values at least this long are checked for in the output: a shorter one (`e`) can occur
 * inside the markers themselves, which are fixed ASCII.
 */
export const MIN_VERIFIED_SECRET = 8;

/** Rounds of re-detection on the redacted text before the sink gives up (see below). */
const MAX_ROUNDS = 8;

export function checkKnown(known: unknown): readonly string[] {
  if (!Array.isArray(known) || !known.every((k): k is string => typeof k === 'string')) {
    throw new RedactionError('invalid_input', 'known secrets must be an array of strings');
  }
  return known;
}

function detect(text: string, known: readonly string[]): Redaction[] {
  return [...findKnown(text, known), ...findPatterns(text), ...findAssignments(text)];
}

function sameSpans(a: readonly Redaction[], b: readonly Redaction[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((s, i) => {
    const other = b.at(i);
    return other !== undefined && s.start === other.start && s.end === other.end && s.kind === other.kind;
  });
}

/**
 * Detection runs again on its own output until it finds nothing new. Replacing a secret changes
 * its neighbours' context (`-----xoxb-…` becomes `]xoxb-…`, two halves of a known value can meet
 * across a marker), so one pass can miss what a second would find. Iterating makes the sink
 * idempotent by construction: its output is a fixpoint, so redacting it again changes nothing.
 */
function redactUnchecked(text: string, known: readonly string[]): RedactResult {
  let spans = mergeSpans(detect(text, known));
  // Nothing found: the text is its own output, and detecting again on the same text finds the
  // same nothing (detection is a pure function of text and known), so it is not run twice.
  if (spans.length === 0) return { text, redactions: spans };
  let result = new Redacted(text, spans);
  for (let round = 1; ; round += 1) {
    const more = detect(result.text, known);
    if (more.length === 0) break;
    const next = mergeSpans([...spans, ...more.map((s) => result.toOriginal(s))]);
    // Nothing new in the original: the find lies inside a marker; the check below decides.
    if (sameSpans(next, spans)) break;
    if (round >= MAX_ROUNDS) throw new RedactionError('internal_error', 'redaction did not settle');
    spans = next;
    result = new Redacted(text, spans);
  }
  // INVARIANT: no known secret survives. It could only if a secret overlaps the marker text
  // itself; then the sink fails loudly rather than return it.
  for (const secret of known) {
    if (secret.length >= MIN_VERIFIED_SECRET && result.text.includes(secret)) {
      throw new RedactionError('residual_secret', 'a known secret survived redaction');
    }
  }
  return { text: result.text, redactions: spans };
}

/**
 * Hides every secret in `text`; `known` are exact values to hide wherever they appear. Throws
 * `RedactionError` on any failure and never returns unredacted text.
 */
export function redact(text: string, known: readonly string[] = []): RedactResult {
  // Callers are typed, but a sink must not trust that: an untyped caller's non-string is refused.
  const input: unknown = text;
  if (typeof input !== 'string') throw new RedactionError('invalid_input', 'redact takes a string');
  const secrets = checkKnown(known);
  try {
    return redactUnchecked(input, secrets);
  } catch (e) {
    if (e instanceof RedactionError) throw e;
    throw new RedactionError('internal_error', 'redaction failed', e instanceof Error ? e.name : typeof e);
  }
}
