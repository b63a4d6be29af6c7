import { Agent } from 'node:https';
import type { PushDelivery, PushMessage } from '../../../shared/push-message.js';
import type { PushTarget, VapidKeys } from './push-store.js';

/** How one delivery to a push service ended: accepted, the subscription is gone (drop it), or failed. */
export type PushOutcome = { readonly kind: 'sent' } | { readonly kind: 'gone'; readonly status: number } | { readonly kind: 'failed'; readonly reason: string };

export type PushSend = (target: PushTarget, message: PushMessage, delivery: PushDelivery) => Promise<PushOutcome>;

/** VAPID keys from web-push itself (loaded only when a home first needs them). */
export async function makeVapidKeys(): Promise<VapidKeys> {
  const webpush = (await import('web-push')).default;
  return webpush.generateVAPIDKeys();
}

/**
 * Sends through the browser vendor's push service with `web-push` (RFC 8030 delivery, RFC 8291
 * aes128gcm encryption to the browser's key, RFC 8292 VAPID): the service sees ciphertext, a TTL,
 * an urgency and a topic. `ca` adds trust for a push service whose certificate is not publicly
 * signed (a self-hosted one; the tests' stand-in).
 */
export function webPushSender(vapid: VapidKeys, options: { readonly subject: string; readonly ca?: string | undefined; readonly timeoutMs?: number }): PushSend {
  const agent = options.ca === undefined ? undefined : new Agent({ ca: options.ca, keepAlive: true });
  return async (target, message, delivery) => {
    const webpush = (await import('web-push')).default;
    try {
      await webpush.sendNotification({ endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } }, JSON.stringify(message), {
        vapidDetails: { subject: options.subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
        contentEncoding: 'aes128gcm',
        TTL: delivery.ttlSeconds,
        urgency: delivery.urgency,
        topic: delivery.topic,
        timeout: options.timeoutMs ?? 10_000,
        ...(agent === undefined ? {} : { agent }),
      });
      return { kind: 'sent' };
    } catch (e) {
      const status = (e as { statusCode?: unknown }).statusCode;
      // RFC 8030 §7.3: 404 and 410 mean the subscription expired or was unsubscribed.
      if (status === 404 || status === 410) return { kind: 'gone', status };
      return { kind: 'failed', reason: typeof status === 'number' ? `the push service answered HTTP ${String(status)}` : e instanceof Error ? e.message : 'unknown error' };
    }
  };
}
