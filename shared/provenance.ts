/** Where a piece of content came from (SPEC §4). Reading the last two taints the session. */
export const PROVENANCE_KINDS = ['user', 'local_trusted', 'local_foreign', 'external'] as const;

export type ProvenanceKind = (typeof PROVENANCE_KINDS)[number];

export interface ProvenanceEntry {
  readonly kind: ProvenanceKind;
  /** What was read, e.g. `node_modules/foo/README.md` or a URL. */
  readonly source: string;
}

export function isTainting(kind: ProvenanceKind): boolean {
  return kind === 'local_foreign' || kind === 'external';
}
