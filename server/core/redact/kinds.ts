/** What a redaction hid. Stable strings: they appear in markers, previews and the audit log. */
export const REDACTION_KINDS = [
  'known-secret',
  'private-key',
  'anthropic-key',
  'openai-key',
  'github-token',
  'aws-access-key-id',
  'aws-secret-access-key',
  'slack-token',
  'slack-webhook',
  'google-api-key',
  'stripe-key',
  'npm-token',
  'jwt',
  'connection-string',
  'url-credentials',
  'secret-assignment',
  'secret-field',
] as const;
export type RedactionKind = (typeof REDACTION_KINDS)[number];

/** One hidden span; `start`/`end` are UTF-16 offsets into the ORIGINAL text, end exclusive. */
export interface Redaction {
  readonly kind: RedactionKind;
  readonly start: number;
  readonly end: number;
}

/** The visible marker that replaces a secret (SPEC §6: previews show redactions marked). */
export function marker(kind: RedactionKind): string {
  return `[REDACTED:${kind}]`;
}

const MARKER_ONLY = /^\[REDACTED:[a-z0-9-]+\]$/u;

/** True for a string that is nothing but a marker: redacting it again must change nothing. */
export function isMarker(text: string): boolean {
  return MARKER_ONLY.test(text);
}

/**
 * When two detectors overlap, the merged span is reported under the most specific kind: an
 * exact known value beats a pattern, a pattern beats the entropy guess. Lower rank wins.
 */
export function kindRank(kind: RedactionKind): number {
  return REDACTION_KINDS.indexOf(kind);
}
