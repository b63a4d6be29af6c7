/// <reference lib="webworker" />
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { notificationText, parsePushMessage, type PushMessage } from '../../shared/push-message.js';

/**
 * The phone's offline shell (SPEC §10), with workbox: the built app is precached (the list is
 * injected at build time), navigations to the phone's pages are answered from that shell, and
 * nothing under /api is ever cached: approvals, events and answers always go to the gate.
 *
 * Web Push (issue 15): a message says how many requests wait and the tier, never what they are;
 * it becomes a notification (every push must show one) and the app badge; tapping it opens the
 * card it is about, in the open app or a new window.
 */
declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: { url: string; revision: string | null }[] };

cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST);
registerRoute(new NavigationRoute(createHandlerBoundToURL('/index.html'), { allowlist: [/^\/$/u, /^\/pair$/u], denylist: [/^\/api\//u, /^\/desktop/u, /^\/login/u] }));
self.addEventListener('install', () => {
  void self.skipWaiting();
});

/** A message that is not ours still shows something (a user-visible push is a promise the browser enforces). */
const UNKNOWN: PushMessage = { v: 1, kind: 'approval', count: 0, tier: null, approval_id: null };

/** Options Chromium and Android honour that TypeScript's lib does not list yet. */
type RichOptions = NotificationOptions & { renotify?: boolean; vibrate?: number[] };

self.addEventListener('push', (event) => {
  const message = (event.data === null ? undefined : parsePushMessage(event.data.text())) ?? UNKNOWN;
  if (message.kind === 'settled') {
    event.waitUntil(settle(message));
    return;
  }
  const { title, body } = message === UNKNOWN ? { title: 'ORACLE', body: 'Open ORACLE to see what is waiting.' } : notificationText(message);
  const options: RichOptions = {
    body,
    tag: message.kind === 'halt' ? 'oracle-halt' : 'oracle-requests',
    renotify: true,
    icon: '/icon-192.png',
    badge: '/icon-192.png',
    vibrate: [180, 80, 180],
    data: { approval_id: message.approval_id },
  };
  const badge = message.kind !== 'halt' && 'setAppBadge' in self.navigator ? self.navigator.setAppBadge(message.count).catch(() => undefined) : undefined;
  event.waitUntil(Promise.all([self.registration.showNotification(title, options), badge]));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = event.notification.data as { approval_id?: unknown } | null;
  const id = typeof data?.approval_id === 'string' ? data.approval_id : null;
  event.waitUntil(openCard(id));
});

/** The phone app already open (not the desktop screen) is shown that card; else it opens on it. */
async function openCard(id: string | null): Promise<void> {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const phone = windows.find((w) => !new URL(w.url).pathname.startsWith('/desktop'));
  if (phone !== undefined) {
    phone.postMessage({ type: 'open-card', approval_id: id });
    await phone.focus().catch(() => undefined);
    return;
  }
  await self.clients.openWindow(id === null ? '/' : `/#card=${encodeURIComponent(id)}`);
}

/**
 * A request was answered: the notification still up takes the new count, quietly, or goes away
 * when none wait (or none was up). A push must show a notification, so the one taken away is shown
 * silently first.
 */
async function settle(message: PushMessage): Promise<void> {
  const tag = 'oracle-requests';
  const { title, body } = notificationText(message);
  const up = await self.registration.getNotifications({ tag });
  const badge = 'setAppBadge' in self.navigator ? self.navigator.setAppBadge(message.count).catch(() => undefined) : undefined;
  const options: RichOptions = { body, tag, renotify: false, silent: true, icon: '/icon-192.png', badge: '/icon-192.png', data: { approval_id: null } };
  await self.registration.showNotification(title, options);
  if (message.count === 0 || up.length === 0) for (const n of await self.registration.getNotifications({ tag })) n.close();
  await badge;
}
