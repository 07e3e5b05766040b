/**
 * The real service-cli process never forwards its credential through a redirect, and never prints the
 * service's text with terminal control characters in it (a comment whose text holds an escape sequence
 * that would retitle the terminal and clear the screen, and C1 controls).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createView } from '../integration/filters/fixtures';
import { backendName } from '../support/db';
import { startTestService, type TestService } from '../support/service';
import { type Cli, cliFor, explain, requireRoutes } from './support';

/** A server on 127.0.0.1 that records each request's headers and answers with `answer`. */
async function recorder(answer: (res: http.ServerResponse) => void) {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    answer(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

// ESC ] 0 ; … BEL retitles the window, ESC [ 2 J clears the screen, a lone CR rewrites the line, U+009B is CSI.
const HOSTILE = 'Easter\u001b]0;owned\u0007 campaign\u001b[2J\rfake line\u009b31m end\u0007';
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters the CLI must not print
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe(`service-cli output and redirects on ${backendName}`, () => {
  let s: TestService;
  let cli: Cli;
  let commentId: number;
  let viewId: number;

  beforeAll(async () => {
    requireRoutes(['GET', '/api/v1/comments/{id}'], ['POST', '/api/v1/comments']);
    s = await startTestService();
    cli = cliFor(s);
    const view = await createView(s.container.db, { domain: 'retail', name: 'ctl', categories: ['country'] });
    viewId = view.id;
    const made = await s.call('POST', '/api/v1/comments', {
      auth: s.adminToken,
      body: {
        text: HOSTILE,
        email: 'admin@example.com',
        dataViewId: view.id,
        dateFrom: '2025-03-09',
        dateTo: '2025-03-11',
        categories: { country: 'CZ\u001b[31m' },
      },
    });
    if (made.status !== 201) throw new Error(made.text);
    commentId = made.body.id;
  });
  afterAll(async () => {
    cli?.cleanup();
    await s?.stop();
  });

  it('prints a comment without control characters, and --json keeps the text exact as escapes', async () => {
    const shown = await cli.run(['comments', 'get', String(commentId)]);
    expect(shown.code, explain(shown)).toBe(0);
    expect(shown.stdout).toContain('Easter]0;owned campaign[2Jfake line31m end');
    expect(shown.stdout).not.toMatch(CONTROLS);

    const listed = await cli.run(['comments', 'by-dataview', String(viewId)]);
    expect(listed.code, explain(listed)).toBe(0);
    expect(listed.stdout).toContain('Easter]0;owned');
    expect(listed.stdout).not.toMatch(CONTROLS);

    const json = await cli.run(['comments', 'get', String(commentId), '--json']);
    expect(json.code, explain(json)).toBe(0);
    // Pretty-printed JSON holds newlines only: every control inside a string is an escape.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters the CLI must not print
    expect(json.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(json.json.text).toBe(HOSTILE);
  });

  it('strips control characters from a problem the service answers', async () => {
    const missing = await cli.run(['dataviews', 'get', 'retail/no\u001b[2Jsuch']);
    expect(missing.code, explain(missing)).not.toBe(0);
    expect(missing.stderr).toContain('Error:');
    expect(missing.stderr).not.toMatch(CONTROLS);
  });

  it('refuses a redirect, so the API key never reaches the host it points to', async () => {
    const collector = await recorder((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    });
    const redirector = await recorder((res) => {
      res.writeHead(307, { location: `${collector.url}/api/v1/dataviews` });
      res.end();
    });
    try {
      for (const credential of [{ apiKey: 'ak_live_secret', token: null }, {}]) {
        const r = await cli.run(['dataviews', 'list'], {
          ...credential,
          env: { SERVICE_CLI_URL: redirector.url },
        });
        expect(r.code, explain(r)).toBe(1);
        expect(r.stderr).toContain('answered 307 redirecting to');
        expect(r.stderr).toContain('does not follow redirects');
      }
      expect(redirector.seen.map((h) => h['x-api-key'] ?? h.authorization?.slice(0, 6))).toEqual([
        'ak_live_secret',
        'Bearer',
      ]);
      expect(collector.seen).toEqual([]);
    } finally {
      await redirector.close();
      await collector.close();
    }
  });
});
