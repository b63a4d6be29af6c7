/** Who is calling, as the auth middleware established it. http never sees how. */
export type Caller =
  | { readonly kind: 'agent'; readonly id: string; readonly name: string }
  | { readonly kind: 'device'; readonly id: string; readonly name: string; readonly profile: 'phone' | 'desktop' };

export interface CallerVerifier {
  /** Resolves a bearer header to a caller; undefined for anything unknown, revoked or malformed. */
  verify(authorization: string | undefined): Promise<Caller | undefined>;
}
