import type { CredentialStore } from '../adapters/credentials-store.js';
import type { PushStore } from '../adapters/push/push-store.js';
import type { PushSend } from '../adapters/push/web-push-sender.js';
import type { EventHub } from '../app/events.js';
import type { PushNotifierDeps } from '../app/push-notifier.js';
import type { Runtime } from '../app/runtime.js';

/** The push notifier over this gate's hub, approvals, devices and push store (issue 15). */
export function pushNotifierDeps(deps: { readonly push: PushStore; readonly credentials: CredentialStore; readonly hub: EventHub; readonly runtime: Runtime; readonly report: (line: string) => void; readonly send: PushSend }): PushNotifierDeps {
  const { push, credentials, hub, runtime, report, send } = deps;
  return {
    subscribe: (listener) => hub.subscribe(undefined, listener, true).close,
    pending: () => runtime.desk.list().filter((a) => a.state === 'pending'),
    // Only a device still paired is told anything.
    recipients: () => {
      const names = new Map(credentials.list('dev').filter((d) => d.revoked_at === null).map((d) => [d.id, d.name]));
      return push.entries().flatMap(([id]) => (names.has(id) ? [{ deviceId: id, name: names.get(id) ?? id }] : []));
    },
    send: async (deviceId, message, delivery) => {
      const target = push.get(deviceId);
      if (target === undefined || !credentials.active(deviceId)) return { kind: 'skipped' };
      const outcome = await send(target, message, delivery);
      return outcome.kind === 'failed' ? { kind: 'failed', reason: outcome.reason } : { kind: outcome.kind };
    },
    drop: (deviceId) => {
      push.remove(deviceId);
    },
    report,
    now: () => Date.now(),
  };
}
