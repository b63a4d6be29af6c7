import { canonicalJson, type Sha256Hex } from '../audit/record.js';

/** arg_hash (SPEC §7): SHA-256 over the RFC 8785 canonical JSON of the fully resolved arguments. */
export function argHash(args: Readonly<Record<string, unknown>>, sha256: Sha256Hex): string {
  return `sha256:${sha256(canonicalJson(args))}`;
}
