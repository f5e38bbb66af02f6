import { defineConfig } from 'vite';

/**
 * The console is served by the service at /console/ under a CSP without 'unsafe-inline' (contract
 * §14): nothing may be inlined into index.html (no inline script, no inline style, no data: script),
 * and no request may leave the service's origin (no CDN, no web font, no preload of a remote file).
 */
export default defineConfig({
  base: '/console/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    cssCodeSplit: false,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: 'es2022',
  },
  oxc: {
    jsx: { runtime: 'automatic', importSource: 'preact' },
  },
});
