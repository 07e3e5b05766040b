/** A self-contained API reference page (no CDN): it reads /api/v1/openapi.json and renders it. */
export function docsPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Anomaly monitor</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
header{background:#1d2430;color:#fff;padding:16px 24px}header h1{margin:0;font-size:20px}
main{max-width:1100px;margin:0 auto;padding:16px 24px}
h2{margin-top:32px;border-bottom:1px solid #d5d9e0;padding-bottom:4px}
details{background:#fff;border:1px solid #d5d9e0;border-radius:6px;margin:6px 0}
summary{cursor:pointer;padding:8px 12px;display:flex;gap:12px;align-items:center}
.m{font:600 12px monospace;padding:2px 8px;border-radius:4px;color:#fff;min-width:52px;text-align:center}
.GET{background:#2f6fde}.POST{background:#1e8e3e}.PUT{background:#b06d00}.DELETE{background:#c5221f}.PATCH{background:#7b4bd6}
code,pre{font-family:ui-monospace,monospace}pre{background:#f0f2f5;padding:8px;overflow:auto;max-height:360px}
.acc{margin-left:auto;font-size:12px;color:#5b6472}.body{padding:0 12px 12px}
input{padding:6px 10px;width:320px;border:1px solid #b8bfca;border-radius:4px}
</style></head>
<body><header><h1>Anomaly monitor — API reference</h1><div id="ver"></div></header>
<main><p>Authenticate with <code>Authorization: Bearer &lt;token&gt;</code> (from <code>POST /api/v1/auth/token</code>) or <code>X-API-Key: &lt;key&gt;</code>.
Errors are <code>application/problem+json</code>. The machine-readable document is <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>
<label>Search <input id="q" type="search" placeholder="path or words"></label><div id="out">Loading…</div></main>
<script>
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
let doc;
function render(q) {
  const groups = {};
  for (const [p, ops] of Object.entries(doc.paths)) for (const [m, op] of Object.entries(ops)) {
    const text = (m + ' ' + p + ' ' + op.summary).toLowerCase();
    if (q && !text.includes(q.toLowerCase())) continue;
    (groups[op.tags[0]] ??= []).push([m.toUpperCase(), p, op]);
  }
  let html = '';
  for (const [tag, list] of Object.entries(groups)) {
    html += '<h2>' + esc(tag) + '</h2>';
    for (const [m, p, op] of list) {
      const ref = op.requestBody && op.requestBody.content['application/json'].schema.$ref;
      const schema = ref ? doc.components.schemas[ref.split('/').pop()] : null;
      html += '<details><summary><span class="m ' + m + '">' + m + '</span><code>' + esc(p) + '</code> ' + esc(op.summary) +
        '<span class="acc">' + esc(op['x-access']) + '</span></summary><div class="body">' +
        (schema ? '<p>Request body:</p><pre>' + esc(JSON.stringify(schema, null, 2)) + '</pre>' : '') +
        '<p>Responses: ' + Object.keys(op.responses).map(esc).join(', ') + '</p></div></details>';
    }
  }
  document.getElementById('out').innerHTML = html || '<p>No endpoint matches.</p>';
}
fetch('/api/v1/openapi.json').then((r) => r.json()).then((d) => {
  doc = d; document.getElementById('ver').textContent = 'version ' + d.info.version; render('');
});
document.getElementById('q').addEventListener('input', (e) => render(e.target.value));
</script></body></html>`;
}
