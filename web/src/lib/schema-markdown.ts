/**
 * Stands in for codemirror-json-schema's Markdown renderer (web/vite.config.ts swaps it in): the
 * descriptions of our schema are plain sentences with `code` spans, and the original brings
 * markdown-it and the shiki highlighter (about 600 kB) to render them. Same signature, HTML out.
 */
const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

export function renderMarkdown(markdown: string, inline = true): string {
  const html = escapeHtml(markdown)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\n/g, '<br>');
  return inline ? html : `<p>${html}</p>`;
}
