import canonicalize from 'canonicalize';

/**
 * RFC 8785 canonical JSON (the `canonicalize` reference implementation), shared so the server and
 * the PWA hash and sign the very same bytes: arg_hash, audit records and approval cards.
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no canonical JSON form');
  return text;
}
