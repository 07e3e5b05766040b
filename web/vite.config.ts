/** Vite build of the web UI: `vite build web` writes web/dist, served on the API's origin by functions/http/web.ts. */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
  },
  // `npx vite web` for UI work against a running `npm start` on port 3000.
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
