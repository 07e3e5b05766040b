import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callModel, renderBody } from '../../../lib/summaries/llm-client';
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
    timeoutMs: 1000,
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
    ['error500', /HTTP 500: .*model overloaded/],
    ['no-content', /no text at the response path choices\[0\]\.message\.content/],
    ['not-json', /did not answer JSON/],
  ] as const)('fails clearly when the endpoint is %s', async (mode, message) => {
    fake.mode = mode;
    await expect(callModel(endpoint(), { instructions: 'i', prompt: 'p' })).rejects.toThrow(message);
  });
});
