/**
 * Which Web Push subscriptions the gate accepts from a paired device (issue 15). The gate POSTs
 * to the endpoint a device names, so the endpoint must belong to a browser vendor's push service
 * (or a push service the person named at start, `--push-origin`): a paired device can never point
 * the gate at an address of its own choosing. The keys must be the shapes RFC 8291 uses.
 */
export interface SubscriptionInput {
  readonly endpoint: string;
  readonly p256dh: string;
  readonly auth: string;
}

/** The push services of Chrome/Android and Edge's Chromium (FCM), Firefox (autopush), Safari and iOS (APNs), Windows (WNS). */
const VENDOR_HOSTS: readonly string[] = ['fcm.googleapis.com', 'android.googleapis.com', 'updates.push.services.mozilla.com', 'web.push.apple.com'];
const VENDOR_SUFFIXES: readonly string[] = ['.push.apple.com', '.notify.windows.com'];
/** 65 bytes (0x04 ‖ x ‖ y) in unpadded base64url: 87 characters, the first a `B`. */
const P256DH = /^B[A-Za-z0-9_-]{86}$/u;
/** 16 bytes in unpadded base64url. */
const AUTH = /^[A-Za-z0-9_-]{22}$/u;
const MAX_ENDPOINT = 2048;

export type SubscriptionCheck = { readonly ok: true; readonly value: SubscriptionInput } | { readonly ok: false; readonly reason: string };

/** Reads `{endpoint, keys: {p256dh, auth}}` (a PushSubscription's JSON) against the allowed push services. */
export function checkSubscription(body: Readonly<Record<string, unknown>>, extraOrigins: readonly string[]): SubscriptionCheck {
  const endpoint = body['endpoint'];
  const keys = body['keys'] as Record<string, unknown> | null | undefined;
  if (typeof endpoint !== 'string' || endpoint.length > MAX_ENDPOINT) return { ok: false, reason: '`endpoint` is the push service URL the browser gave (at most 2048 characters)' };
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return { ok: false, reason: '`endpoint` is not a URL' };
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return { ok: false, reason: '`endpoint` must be an https URL without credentials' };
  const host = url.hostname.toLowerCase();
  const vendor = url.port === '' && (VENDOR_HOSTS.includes(host) || VENDOR_SUFFIXES.some((s) => host.endsWith(s)));
  if (!vendor && !extraOrigins.includes(url.origin)) return { ok: false, reason: `\`${url.origin}\` is not a browser vendor's push service (a self-hosted one is allowed with \`oracle serve --push-origin ${url.origin}\`)` };
  if (typeof keys !== 'object' || keys === null) return { ok: false, reason: '`keys` holds the subscription’s p256dh and auth' };
  const p256dh = keys['p256dh'];
  const auth = keys['auth'];
  if (typeof p256dh !== 'string' || !P256DH.test(p256dh)) return { ok: false, reason: '`keys.p256dh` is an uncompressed P-256 public key, base64url' };
  if (typeof auth !== 'string' || !AUTH.test(auth)) return { ok: false, reason: '`keys.auth` is a 16-byte secret, base64url' };
  return { ok: true, value: { endpoint, p256dh, auth } };
}
