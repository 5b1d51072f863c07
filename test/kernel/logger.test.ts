import { Writable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { createLogger, serializeRequest } from '../../kernel/logger.js';

const TOKEN = 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLWJ5dGVz';
const COOKIE = 'session=cookie-secret-value';
const SUBJECT = 'identity-header-subject';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[]; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return {
    stream,
    text: () => text,
    lines: () =>
      text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
  };
}

function fakeRequest(): IncomingMessage {
  return {
    method: 'POST',
    url: `/records?access_token=${TOKEN}&limit=5`,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      cookie: COOKIE,
      'x-auth-subject': SUBJECT,
      'content-type': 'application/json',
      'x-request-id': 'req-1',
    },
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
}

describe('logger redaction', () => {
  test('a logged request keeps method, path and harmless headers, never credentials', () => {
    const out = capture();
    const logger = createLogger({ destination: out.stream, sensitiveHeaders: ['x-auth-subject'] });
    logger.info({ req: fakeRequest() }, 'request');
    const [line] = out.lines();
    expect(line?.req).toEqual({
      method: 'POST',
      url: '/records?access_token=%5BRedacted%5D&limit=5',
      remoteAddress: '127.0.0.1',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-1' },
    });
    for (const secret of [TOKEN, 'cookie-secret-value', SUBJECT]) expect(out.text()).not.toContain(secret);
  });

  test('raw headers, token fields and configured identity headers logged by hand are redacted', () => {
    const out = capture();
    const logger = createLogger({ destination: out.stream, sensitiveHeaders: ['x-auth-subject'] });
    const { headers } = fakeRequest();
    logger.info({ headers }, 'raw headers');
    logger.warn({ upstream: { headers } }, 'nested headers');
    logger.info({ token: TOKEN, auth: { access_token: TOKEN, authorization: `Bearer ${TOKEN}` } }, 'fields');
    const text = out.text();
    for (const secret of [TOKEN, 'cookie-secret-value', SUBJECT]) expect(text).not.toContain(secret);
    expect(out.lines()[0]?.headers).toMatchObject({ authorization: '[Redacted]', cookie: '[Redacted]', 'x-auth-subject': '[Redacted]' });
  });

  test('tokens interpolated into messages are masked', () => {
    const out = capture();
    const logger = createLogger({ destination: out.stream });
    logger.warn(`authentication failed for Bearer ${TOKEN}`);
    logger.error({ request_id: 'r' }, 'token was %s', TOKEN);
    expect(out.text()).not.toContain(TOKEN);
    expect(out.lines()[0]?.msg).toBe('authentication failed for Bearer [Redacted]');
  });

  test('a credential alone on its line, in any case, is masked too', () => {
    const out = capture();
    const logger = createLogger({ destination: out.stream });
    logger.warn('the proxy refused basic dXNlcjpwYXNz');
    expect(out.lines()[0]?.msg).toBe('the proxy refused basic [Redacted]');
  });

  test('URLs in any field at any depth lose their user:password and query; the line stays JSON', () => {
    const out = capture();
    const logger = createLogger({ destination: out.stream });
    const url = 'http://ops:PASS-1@models.example/catalog.json?token=T-1';
    logger.error({ reason: `catalog could not be loaded: ${url}`, registryError: { message: `${url} answered HTTP 503`, list: [url] } }, 'registry');
    const [line] = out.lines();
    expect(line).toMatchObject({
      reason: 'catalog could not be loaded: http://models.example/catalog.json',
      registryError: { message: 'http://models.example/catalog.json answered HTTP 503', list: ['http://models.example/catalog.json'] },
    });
    for (const secret of ['ops', 'PASS-1', 'T-1']) expect(out.text()).not.toContain(secret);
  });

  test('serializeRequest works on requests without a query string', () => {
    expect(serializeRequest({ ...fakeRequest(), url: '/models' } as IncomingMessage).url).toBe('/models');
  });
});
