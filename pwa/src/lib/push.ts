import { ApiError } from './api.js';
import type { DeviceClient } from './device-client.js';

/**
 * Web Push on this phone (issue 15): whether the browser can, whether the person allowed it, and
 * the subscription handed to the gate (bound to this device, signed with its key). The browser
 * makes the subscription with its vendor's push service, so it needs the internet; the gate only
 * ever sends "N requests waiting" and the tier through it.
 */
export type PushState =
  | { readonly kind: 'unsupported'; readonly why: string }
  | { readonly kind: 'blocked' }
  | { readonly kind: 'off' }
  | { readonly kind: 'on' }
  | { readonly kind: 'failed'; readonly why: string };

const supported = (): string | undefined => {
  if (!('serviceWorker' in navigator)) return 'this browser has no service workers here (is the local CA installed?)';
  if (!('PushManager' in window) || !('Notification' in window)) return 'this browser cannot receive push messages (on iPhone: add ORACLE to the home screen first)';
  return undefined;
};

/** What the gate and the browser say now. */
export async function pushState(client: DeviceClient): Promise<PushState> {
  const why = supported();
  if (why !== undefined) return { kind: 'unsupported', why };
  if (Notification.permission === 'denied') return { kind: 'blocked' };
  try {
    const registration = await navigator.serviceWorker.ready;
    const [gate, local] = await Promise.all([client.get<{ subscribed: boolean }>('/api/v1/push'), registration.pushManager.getSubscription()]);
    return gate.body.subscribed && local !== null ? { kind: 'on' } : { kind: 'off' };
  } catch (e) {
    return { kind: 'failed', why: e instanceof ApiError ? `${e.code}: ${e.message}` : 'the push state could not be read' };
  }
}

const fromBase64Url = (text: string): Uint8Array<ArrayBuffer> => {
  const b64 = text.replace(/-/gu, '+').replace(/_/gu, '/');
  const raw = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(raw, (ch) => ch.charCodeAt(0));
};

/** Asks the person, subscribes with the gate's VAPID key, and hands the subscription to the gate. */
export async function turnOn(client: DeviceClient): Promise<PushState> {
  const why = supported();
  if (why !== undefined) return { kind: 'unsupported', why };
  const permission = await Notification.requestPermission();
  if (permission === 'denied') return { kind: 'blocked' };
  if (permission !== 'granted') return { kind: 'off' };
  try {
    const registration = await navigator.serviceWorker.ready;
    const { body } = await client.get<{ vapid_public_key: string }>('/api/v1/push');
    const key = fromBase64Url(body.vapid_public_key);
    let subscription = await registration.pushManager.getSubscription();
    // A subscription made for another key (a reinstalled gate) cannot carry this gate's messages.
    const held = subscription?.options.applicationServerKey;
    if (subscription !== null && (held === null || held === undefined || !sameBytes(new Uint8Array(held), key))) {
      await subscription.unsubscribe();
      subscription = null;
    }
    subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    await client.post('/api/v1/push/subscribe', subscription.toJSON());
    return { kind: 'on' };
  } catch (e) {
    return { kind: 'failed', why: e instanceof ApiError ? `${e.code}: ${e.message}` : e instanceof Error ? `the browser's push service refused (${e.message})` : 'the browser refused' };
  }
}

export async function turnOff(client: DeviceClient): Promise<PushState> {
  try {
    await client.post('/api/v1/push/unsubscribe', {});
    const registration = await navigator.serviceWorker.ready;
    await (await registration.pushManager.getSubscription())?.unsubscribe();
    return { kind: 'off' };
  } catch (e) {
    return { kind: 'failed', why: e instanceof ApiError ? `${e.code}: ${e.message}` : 'notifications could not be turned off' };
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
