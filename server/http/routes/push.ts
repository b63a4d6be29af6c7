import { Hono } from 'hono';
import type { SubscriptionInput } from '../../core/push/subscription.js';
import { checkSubscription } from '../../core/push/subscription.js';
import type { Caller } from '../caller.js';
import type { DeviceKeys } from '../device-signature.js';
import { fail } from '../errors.js';
import { signedBody } from '../signed-body.js';

/** What the push routes need (main.ts composes it over the push store). */
export interface PushSubscriptions {
  /** The gate's VAPID public key (RFC 8292), the browser's `applicationServerKey`. */
  readonly vapidPublicKey: string;
  /** Push services besides the browser vendors' that subscriptions may name (`--push-origin`). */
  readonly extraOrigins: readonly string[];
  subscribed(deviceId: string): boolean;
  subscribe(deviceId: string, subscription: SubscriptionInput): void;
  unsubscribe(deviceId: string): void;
}

type Vars = { Variables: { caller: Caller } };

/**
 * A paired device turns Web Push on or off for itself (issue 15): it reads the VAPID key, then
 * hands over its browser's subscription, signed with its device key like every change it asks.
 * A subscription belongs to the device that sent it; it goes when the device is revoked.
 */
export function pushRoutes(push: PushSubscriptions, devices: DeviceKeys, now: () => number): Hono<Vars> {
  const app = new Hono<Vars>();
  app.get('/', (c) => {
    const caller = c.get('caller');
    if (caller.kind !== 'device') return fail(c, 'FORBIDDEN', 'push notifications are for paired devices');
    return c.json({ vapid_public_key: push.vapidPublicKey, subscribed: push.subscribed(caller.id) });
  });
  app.post('/subscribe', async (c) => {
    const caller = c.get('caller');
    if (caller.kind !== 'device') return fail(c, 'FORBIDDEN', 'push notifications are for paired devices');
    const read = await signedBody(c, devices, now());
    if ('error' in read) return read.error;
    const checked = checkSubscription(read.body, push.extraOrigins);
    if (!checked.ok) return fail(c, 'INPUT_INVALID', checked.reason);
    push.subscribe(caller.id, checked.value);
    return c.json({ subscribed: true });
  });
  app.post('/unsubscribe', async (c) => {
    const caller = c.get('caller');
    if (caller.kind !== 'device') return fail(c, 'FORBIDDEN', 'push notifications are for paired devices');
    const read = await signedBody(c, devices, now());
    if ('error' in read) return read.error;
    push.unsubscribe(caller.id);
    return c.json({ subscribed: false });
  });
  return app;
}
