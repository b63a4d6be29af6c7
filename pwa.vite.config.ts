import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

/**
 * The PWA build (SPEC §10): two pages (the phone app, also served at /pair, and the desktop
 * screen), the service worker compiled from pwa/src/sw.ts with workbox and its precache list
 * injected (the phone's files only), the web manifest. Output: dist/pwa, served by `oracle serve`.
 * `build.manifest` lets scripts/pwa-size.ts follow exactly what the phone loads.
 */
const root = resolve(import.meta.dirname, 'pwa');

export default defineConfig({
  root,
  base: '/',
  publicDir: resolve(root, 'public'),
  logLevel: 'warn',
  build: {
    outDir: resolve(import.meta.dirname, 'dist', 'pwa'),
    emptyOutDir: true,
    target: 'es2022',
    manifest: true,
    sourcemap: false,
    modulePreload: { polyfill: false },
    rolldownOptions: { input: { index: resolve(root, 'index.html'), desktop: resolve(root, 'desktop.html') } },
  },
  plugins: [
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'sw.ts',
      injectRegister: false,
      manifestFilename: 'manifest.webmanifest',
      injectManifest: { globPatterns: ['index.html', 'assets/*.{js,css}'], globIgnores: ['**/desktop*'], minify: true, sourcemap: false },
      manifest: {
        name: 'ORACLE',
        short_name: 'ORACLE',
        description: 'Approve, deny or HALT what your AI agents want to do.',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        background_color: '#eef1f4',
        theme_color: '#0b5cad',
        icons: [
          { src: '/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: '/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          { src: '/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
          { src: '/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
        ],
      },
    }),
  ],
});
