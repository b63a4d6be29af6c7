/**
 * Bearer tokens (SPEC §9a): `oracle_<id>_<secret>`, the id public and looked up first, the secret
 * 32 random bytes in base64url. Parsing is strict so junk is refused before any hashing.
 */
export const TOKEN_KINDS = ['ag', 'dev'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

const TOKEN = /^oracle_((?:ag|dev)_[0-9a-f]{16})_([A-Za-z0-9_-]{43})$/u;

export interface ParsedToken {
  readonly id: string;
  readonly kind: TokenKind;
  readonly secret: string;
}

export function parseBearer(header: string | undefined): ParsedToken | undefined {
  if (header === undefined || !header.startsWith('Bearer ')) return undefined;
  const m = TOKEN.exec(header.slice('Bearer '.length).trim());
  if (m === null) return undefined;
  const id = m[1] ?? '';
  return { id, kind: id.startsWith('ag_') ? 'ag' : 'dev', secret: m[2] ?? '' };
}

export function formatToken(id: string, secret: string): string {
  return `oracle_${id}_${secret}`;
}
