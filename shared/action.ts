import * as z from 'zod';
import { PROVENANCE_KINDS } from './provenance.js';

/**
 * One action as an agent or `oracle check` sends it (SPEC §12):
 * `{tool, args, cwd?, session?, tainted?, provenance?, agent?}`. `provenance` is either one kind
 * or a list of `{kind, source}` entries naming what was read; `agent` names a principal from the
 * policy. The tool's own arguments are checked against its contract, not here.
 */
const provenanceEntry = z.strictObject({ kind: z.enum(PROVENANCE_KINDS), source: z.string().max(4096) });

/** A lone UTF-16 surrogate: no file name, no URL and no canonical JSON (RFC 8785) can hold one. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Whether any string anywhere in `value` (keys included) holds a lone surrogate. */
export function hasLoneSurrogate(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (depth > 64 || typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some((v) => hasLoneSurrogate(v, depth + 1));
  return Object.entries(value).some(([k, v]) => LONE_SURROGATE.test(k) || hasLoneSurrogate(v, depth + 1));
}

export const actionRequestSchema = z
  .strictObject({
    tool: z.string().min(1).max(128),
    args: z.record(z.string(), z.unknown()),
    cwd: z.string().max(4096).optional(),
    session: z.string().min(1).max(256).optional(),
    tainted: z.boolean().optional(),
    provenance: z.union([z.enum(PROVENANCE_KINDS), z.array(provenanceEntry).max(256)]).optional(),
    agent: z.string().min(1).max(64).optional(),
  })
  // Refused before anything reads it: the audit record of the decision could not be written.
  .refine((action) => !hasLoneSurrogate(action), 'a string in the action is not well-formed Unicode (a lone surrogate)');

export type ActionRequest = z.output<typeof actionRequestSchema>;
