import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress } from '../../../lib/outbound/address-class';
import { endpointRefusal } from '../../../lib/outbound/endpoint-guard';
import { callModel, LlmCallError, renderBody } from '../../../lib/summaries/llm-client';
import { readPath } from '../../../lib/summaries/response-path';
import { type FakeLlm, startFakeLlm } from '../../support/fake-llm';

const template =
  '{"model":"m","messages":[{"role":"system","content":"{{instructions}}"},{"role":"user","content":"{{prompt}}"}]}';

describe('the language-model client', () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(() => fake.close());
  const endpoint = () => ({
    url: fake.url,
    headers: { authorization: 'Bearer sk-test' },
    bodyTemplate: template,
    responsePath: 'choices[0].message.content',
    // Long enough that an endless answer meets the byte limit before the time-out on a busy machine.
    timeoutMs: fake.mode === 'endless' ? 30_000 : 1000,
  });

  it('fills the placeholders with JSON-escaped text', () => {
    const body = JSON.parse(renderBody(template, { instructions: 'Say "hi"\nnow', prompt: 'a\\b' }));
    expect(body.messages[0].content).toBe('Say "hi"\nnow');
    expect(body.messages[1].content).toBe('a\\b');
  });

  it('reads nested answers by path', () => {
    expect(readPath({ a: [{ b: { c: 'x' } }] }, 'a[0].b.c')).toBe('x');
    expect(readPath({ a: [] }, 'a[0].b')).toBeUndefined();
  });

  it('posts the rendered body with the headers and returns the text at the response path', async () => {
    fake.mode = 'ok';
    const answer = await callModel(endpoint(), { instructions: 'be brief', prompt: 'the prompt' });
    expect(answer.text).toBe('Revenue in CZ dropped.');
    expect(answer.meta.model).toBe('fake-1');
    const last = fake.requests.at(-1)!;
    expect(last.headers.authorization).toBe('Bearer sk-test');
    expect(last.body.messages[1].content).toBe('the prompt');
  });

  it.each([
    ['slow', /did not answer within 1000 ms/],
    ['error500', /HTTP 500\.$/],
    ['no-content', /no text at the response path choices\[0\]\.message\.content/],
    ['not-json', /did not answer JSON/],
    ['endless', /answered more than 1048576 bytes\.$/],
  ] as const)('fails clearly when the endpoint is %s', async (mode, message) => {
    fake.mode = mode;
    await expect(callModel(endpoint(), { instructions: 'i', prompt: 'p' })).rejects.toThrow(message);
  });

  it("keeps the endpoint's raw answer out of the message every reader sees", async () => {
    fake.mode = 'error500';
    const e = (await callModel(endpoint(), { instructions: 'i', prompt: 'p' }).catch(
      (x) => x,
    )) as LlmCallError;
    expect(e).toBeInstanceOf(LlmCallError);
    expect(e.message).not.toMatch(/overloaded/);
    expect(e.answerExcerpt).toMatch(/model overloaded/);
    fake.mode = 'ok';
  });

  it('refuses to call a link-local, metadata or (unless allowed) private address, also when a name resolves there', async () => {
    const call = (url: string, allowPrivateNetwork = false, resolve?: (h: string) => Promise<string[]>) =>
      callModel(
        { ...endpoint(), url, allowPrivateNetwork },
        { instructions: 'i', prompt: 'p' },
        fetch,
        resolve,
      );
    await expect(call('http://169.254.169.254/latest/meta-data/')).rejects.toThrow(/cloud metadata address/);
    await expect(call('http://[fe80::1]/v1')).rejects.toThrow(/link-local/);
    await expect(call('http://metadata.google.internal/x')).rejects.toThrow(/metadata service/);
    await expect(call('http://10.1.2.3/v1')).rejects.toThrow(/private network address.*allowPrivateNetwork/);
    await expect(call('http://llm.internal/v1', false, async () => ['192.168.1.10'])).rejects.toThrow(
      /private network address \(192\.168\.1\.10\)/,
    );
    await expect(call('http://rebind.example/v1', true, async () => ['169.254.169.254'])).rejects.toThrow(
      /metadata/,
    );
  });

  it('connects only to an address checked while connecting: a name that rebinds after the check is refused', async () => {
    fake.mode = 'ok';
    const port = new URL(fake.url).port;
    const before = fake.requests.length;
    // Resolves to loopback for the check, then to the metadata address for the connection.
    const answers = [['127.0.0.1'], ['169.254.169.254']];
    const rebinding = async () => answers.shift() ?? ['169.254.169.254'];
    const e = (await callModel(
      { ...endpoint(), url: `http://rebind.test:${port}/v1/chat/completions` },
      { instructions: 'i', prompt: 'p' },
      undefined,
      rebinding,
    ).catch((x) => x)) as LlmCallError;
    expect(e).toBeInstanceOf(LlmCallError);
    expect(e.message).toMatch(/could not be reached/);
    expect(e.answerExcerpt).toMatch(/cloud metadata address \(169\.254\.169\.254\)/);
    expect(fake.requests.length).toBe(before);
    // A name that keeps resolving to loopback is called.
    const ok = await callModel(
      { ...endpoint(), url: `http://llm.test:${port}/v1/chat/completions` },
      { instructions: 'i', prompt: 'p' },
      undefined,
      async () => ['127.0.0.1'],
    );
    expect(ok.text).toBe('Revenue in CZ dropped.');
  });

  it('classifies addresses', async () => {
    expect(classifyAddress('127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::1')).toBe('loopback');
    expect(classifyAddress('::ffff:169.254.169.254')).toBe('metadata');
    expect(classifyAddress('169.254.10.1')).toBe('link-local');
    expect(classifyAddress('172.20.0.1')).toBe('private');
    expect(classifyAddress('fd12::1')).toBe('private');
    expect(classifyAddress('fd00:ec2::254')).toBe('metadata');
    expect(classifyAddress('100.100.100.200')).toBe('metadata');
    expect(classifyAddress('8.8.8.8')).toBe('public');
    expect(await endpointRefusal('http://10.0.0.5/v1', { allowPrivateNetwork: true })).toBeUndefined();
    expect(await endpointRefusal('http://127.0.0.1:8080/v1', {})).toBeUndefined();
    expect(await endpointRefusal('http://user:pw@127.0.0.1/v1', {})).toMatch(/user name or password/);
  });
});
