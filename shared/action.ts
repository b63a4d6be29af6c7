import { z } from 'zod';
import { PROVENANCE_KINDS } from './provenance.js';

/**
 * One action as an agent or `oracle check` sends it (SPEC §12):
 * `{tool, args, cwd?, session?, tainted?, provenance?, agent?}`. `provenance` is either one kind
 * or a list of `{kind, source}` entries naming what was read; `agent` names a principal from the
 * policy. The tool's own arguments are checked against its contract, not here.
 */
const provenanceEntry = z.strictObject({ kind: z.enum(PROVENANCE_KINDS), source: z.string().max(4096) });

export const actionRequestSchema = z.strictObject({
  tool: z.string().min(1).max(128),
  args: z.record(z.string(), z.unknown()),
  cwd: z.string().max(4096).optional(),
  session: z.string().min(1).max(256).optional(),
  tainted: z.boolean().optional(),
  provenance: z.union([z.enum(PROVENANCE_KINDS), z.array(provenanceEntry).max(256)]).optional(),
  agent: z.string().min(1).max(64).optional(),
});

export type ActionRequest = z.output<typeof actionRequestSchema>;
