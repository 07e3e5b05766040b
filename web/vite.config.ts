/** Vite build of the web UI: `vite build web` writes web/dist, served on the API's origin by functions/http/web.ts. */
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * codemirror-json-schema renders schema descriptions with markdown-it and the shiki highlighter
 * (about 600 kB for plain sentences); its renderer is replaced by web/src/lib/schema-markdown.ts.
 */
function plainSchemaMarkdown(): Plugin {
  const replacement = path.join(import.meta.dirname, 'src/lib/schema-markdown.ts');
  return {
    name: 'plain-schema-markdown',
    enforce: 'pre',
    resolveId(source, importer) {
      if (importer?.includes('codemirror-json-schema') && /\/utils\/markdown(\.js)?$/.test(source))
        return replacement;
      return null;
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [plainSchemaMarkdown(), react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // The data view page carries the CodeMirror editor with YAML and JSON Schema support (about
    // 700 kB, 225 kB gzipped), loaded only when an administrator opens a data view.
    chunkSizeWarningLimit: 800,
  },
  // `npx vite web` for UI work against a running `npm start` on port 3000.
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
