/**
 * What a Web Push message carries (issue 15): how many requests wait, the tier of the one that
 * made the news, and its opaque approval id so a tap opens that card; never the tool, a path, a
 * command, a host or who asked. The payload is end-to-end encrypted (RFC 8291) anyway; this keeps
 * the lock screen and the push service's metadata to "2 requests waiting, T2".
 */
/** `settled`: a request was answered (or expired): the count left, so the phone takes back what is stale. */
export type PushKind = 'approval' | 'expiring' | 'halt' | 'settled';

export interface PushMessage {
  readonly v: 1;
  readonly kind: PushKind;
  /** Requests waiting for a person when it was sent. */
  readonly count: number;
  readonly tier: 'T2' | 'T3' | null;
  readonly approval_id: string | null;
}

const KINDS: readonly string[] = ['approval', 'expiring', 'halt', 'settled'];
const APPROVAL_ID = /^ap_[A-Za-z0-9_-]{8,64}$/u;

/** A received payload, checked field by field; anything else is not ours (undefined). */
export function parsePushMessage(text: string): PushMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const m = value as Record<string, unknown>;
  const count = m['count'];
  const tier = m['tier'];
  const id = m['approval_id'];
  if (m['v'] !== 1 || typeof m['kind'] !== 'string' || !KINDS.includes(m['kind'])) return undefined;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) return undefined;
  if (tier !== null && tier !== 'T2' && tier !== 'T3') return undefined;
  if (id !== null && (typeof id !== 'string' || !APPROVAL_ID.test(id))) return undefined;
  return { v: 1, kind: m['kind'] as PushKind, count, tier, approval_id: id };
}

/** The notification a message becomes on the phone: words only, no action details. */
export function notificationText(m: PushMessage): { readonly title: string; readonly body: string } {
  const waiting = `${String(m.count)} ${m.count === 1 ? 'request' : 'requests'} waiting`;
  const risk = m.tier === 'T3' ? 'T3 · desktop only' : m.tier === 'T2' ? 'T2 · needs you' : '';
  switch (m.kind) {
    case 'approval':
      return { title: waiting, body: risk === '' ? 'Open ORACLE to decide.' : `${risk}. Open ORACLE to decide.` };
    case 'expiring':
      return { title: 'A request expires in a minute', body: `${waiting}${risk === '' ? '' : ` · ${risk}`}. Unanswered means denied.` };
    case 'halt':
      return { title: 'ORACLE halted', body: 'Every agent action is stopped. Resume from the desktop.' };
    case 'settled':
      // Not "every request was answered": one may have expired unanswered (denied) or been withdrawn.
      return m.count === 0 ? { title: 'Nothing waiting', body: 'No request waits for you now: each was answered, withdrawn, or expired unanswered (denied). Open ORACLE for which.' } : { title: waiting, body: 'Open ORACLE to decide.' };
  }
}

/** How a message travels (RFC 8030): how long the push service may hold it, how urgent, and its topic. */
export interface PushDelivery {
  /** Seconds the push service may keep it for an offline phone; past that it is news no more. */
  readonly ttlSeconds: number;
  readonly urgency: 'normal' | 'high';
  /** Messages with the same topic replace each other at the push service (RFC 8030 §5.4). */
  readonly topic: string;
}
