/** Who is calling, as the auth middleware established it. http never sees how. */
export type Caller =
  | { readonly kind: 'agent'; readonly id: string; readonly name: string }
  | { readonly kind: 'device'; readonly id: string; readonly name: string; readonly profile: 'phone' | 'desktop' }
  | { readonly kind: 'desktop'; readonly id: string; readonly name: 'desktop'; readonly via: 'cookie' | 'token' };

export interface CallerRequest {
  readonly authorization: string | undefined;
  readonly cookie: string | undefined;
  /** Desktop sessions are accepted from loopback only (SPEC §9). */
  readonly loopback: boolean;
  /** The client's address, for the budget of failed credential checks; 'local' for the local socket. */
  readonly address?: string;
}

export interface CallerVerifier {
  /** Resolves a request to a caller; undefined for anything unknown, revoked or malformed. */
  verify(request: CallerRequest): Promise<Caller | undefined>;
}

/** What a caller's profile lets it approve (SPEC §9): phones T2 only; the desktop everything. */
export function approverOf(caller: Caller): { id: string; kind: 'desktop' | 'device'; approveT2: boolean; approveT3: boolean } | undefined {
  switch (caller.kind) {
    case 'agent':
      return undefined; // an agent never approves its own actions
    case 'device':
      return { id: caller.id, kind: 'device', approveT2: true, approveT3: false };
    case 'desktop':
      return { id: 'desktop', kind: 'desktop', approveT2: true, approveT3: true };
  }
}
