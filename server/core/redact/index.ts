/** The redaction sink (SPEC §6): one entry point for text, one for JSON-like values. */
export { redact, MIN_VERIFIED_SECRET, type RedactResult } from './redact.js';
export { redactDeep, type DeepRedaction, type JsonValue, type RedactDeepResult } from './deep.js';
export { RedactionError, isRedactionError, REDACTION_ERROR_CODES, type RedactionErrorCode } from './errors.js';
export { REDACTION_KINDS, isMarker, marker, type Redaction, type RedactionKind } from './kinds.js';
export { isSecretKeyName } from './key-names.js';
export { withoutPartialSecret } from './partial.js';
export { hideKnown } from './hide-known.js';
export { looksLikeOpaqueToken, shannonEntropy } from './entropy.js';
