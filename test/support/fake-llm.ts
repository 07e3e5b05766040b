/** A chat-completions server on 127.0.0.1 that plays the language model: records requests, can be slow or failing. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeLlm {
  url: string;
  requests: Array<{ headers: http.IncomingHttpHeaders; body: any }>;
  /** 'ok' answers like a chat API; the others fail the ways real endpoints do. */
  mode: 'ok' | 'slow' | 'error500' | 'no-content' | 'not-json' | 'endless';
  /** The answer's text, or made from the request body (e.g. to cite what the prompt holds). */
  reply: string | ((body: any) => string);
  close(): Promise<void>;
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const fake: FakeLlm = {
    url: '',
    requests: [],
    mode: 'ok',
    reply: 'Revenue in CZ dropped.',
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // keep text
      }
      fake.requests.push({ headers: req.headers, body });
      const answer = () => {
        if (fake.mode === 'error500') {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end('{"error":{"message":"model overloaded"}}');
        } else if (fake.mode === 'not-json') {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<html>proxy login</html>');
        } else if (fake.mode === 'endless') {
          // A JSON string that never ends, written as fast as the client reads it.
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"choices":[{"message":{"content":"');
          const chunk = 'a'.repeat(64 * 1024);
          const pump = () => {
            while (!res.destroyed) if (!res.write(chunk)) return void res.once('drain', pump);
          };
          pump();
        } else if (fake.mode === 'no-content') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ choices: [] }));
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              model: 'fake-1',
              choices: [
                {
                  index: 0,
                  message: {
                    role: 'assistant',
                    content: typeof fake.reply === 'function' ? fake.reply(body) : fake.reply,
                  },
                },
              ],
              usage: { prompt_tokens: 10, completion_tokens: 5 },
            }),
          );
        }
      };
      if (fake.mode === 'slow') setTimeout(answer, 3000);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
  fake.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return fake;
}

/** The summarization settings that make the service talk to `fake` as a chat-completions endpoint. */
export function chatSettings(fake: Pick<FakeLlm, 'url'>): {
  url: string;
  bodyTemplate: string;
  responsePath: string;
} {
  return {
    url: fake.url,
    bodyTemplate:
      '{"messages":[{"role":"system","content":"{{instructions}}"},{"role":"user","content":"{{prompt}}"}]}',
    responsePath: 'choices[0].message.content',
  };
}
