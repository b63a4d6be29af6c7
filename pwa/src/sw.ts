/// <reference lib="webworker" />
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

/**
 * The phone's offline shell (SPEC §10), with workbox: the built app is precached (the list is
 * injected at build time), navigations to the phone's pages are answered from that shell, and
 * nothing under /api is ever cached: approvals, events and answers always go to the gate.
 */
declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: { url: string; revision: string | null }[] };

cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST);
registerRoute(new NavigationRoute(createHandlerBoundToURL('/index.html'), { allowlist: [/^\/$/u, /^\/pair$/u], denylist: [/^\/api\//u, /^\/desktop/u, /^\/login/u] }));
self.addEventListener('install', () => {
  void self.skipWaiting();
});
