import './app.js';

/**
 * The service worker gives the offline shell and install (SPEC §10), but browsers grant it only
 * to a trusted origin: from a clicked-through certificate the registration fails and the app runs
 * without it. The outcome is shown, not guessed.
 */
const note = document.getElementById('sw-status');

/**
 * The CSP requires Trusted Types for script URLs: one policy that can name exactly one URL, the
 * service worker (allowed by `trusted-types lit-html oracle-sw`).
 */
interface ScriptUrlPolicy {
  createScriptURL(url: string): string;
}
const types = (globalThis as { trustedTypes?: { createPolicy(name: string, rules: { createScriptURL: (url: string) => string }): ScriptUrlPolicy } }).trustedTypes;
const swPolicy = types?.createPolicy('oracle-sw', {
  createScriptURL: (url) => {
    if (url !== '/sw.js') throw new TypeError('only the service worker');
    return url;
  },
});

const say = (text: string): void => {
  if (note !== null) note.textContent = text;
};

/** Reports what the worker really reached: activated (the shell is cached) or redundant (install failed). */
function follow(worker: ServiceWorker | null): void {
  if (worker === null) return;
  const report = (): void => {
    if (worker.state === 'activated') say('Offline shell: on.');
    else if (worker.state === 'redundant') say('Offline shell: off (the service worker failed to install).');
    else say('Offline shell: installing…');
  };
  report();
  worker.addEventListener('statechange', report);
}

if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register(swPolicy?.createScriptURL('/sw.js') ?? '/sw.js', { scope: '/' }).then(
    (registration) => {
      follow(registration.installing ?? registration.waiting ?? registration.active);
    },
    (e: unknown) => {
      say(`Offline shell: off (${e instanceof Error ? e.message : 'refused'}). Install the local CA from the desktop to enable it.`);
    },
  );
} else say('Offline shell: not available in this browser.');
