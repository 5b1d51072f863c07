import { GraphQLError } from 'graphql';
import { DomainError } from '../../../kernel/errors.js';
import { normalizingResolver } from '../../../kernel/graphql/graphql-errors.js';

/** kernel/graphql/graphql-errors.ts: every subgraph field resolver's errors, normalised without making fields async. */
describe('normalizingResolver', () => {
  // `observed`: the request trace's failures, where errors that are the server's fault are recorded for the log line.
  const run = (resolve: () => unknown) => {
    const observed: unknown[] = [];
    const wrapped = normalizingResolver(() => resolve());
    return { observed, call: () => wrapped(undefined, {}, { requestId: 'r', trace: { requestId: 'r', failures: observed } }, {}) };
  };

  test('a synchronous value stays synchronous', () => {
    expect(run(() => 42).call()).toBe(42);
  });

  test('a DomainError, thrown or rejected, becomes its coded GraphQL error and is not reported', async () => {
    const thrown = run(() => {
      throw new DomainError('MODEL_NOT_FOUND', 'no such model', { model: 'x' });
    });
    expect(thrown.call).toThrow(expect.objectContaining({ message: 'no such model', extensions: { code: 'MODEL_NOT_FOUND', details: { model: 'x' } } }));
    const rejected = run(async () => {
      throw new DomainError('MODEL_NOT_FOUND', 'no such model');
    });
    await expect(rejected.call()).rejects.toMatchObject({ extensions: { code: 'MODEL_NOT_FOUND' } });
    expect([...thrown.observed, ...rejected.observed]).toEqual([]);
  });

  test("an already coded GraphQL error (the auth checker's) passes unchanged and is not reported", async () => {
    const coded = new GraphQLError('authentication required', { extensions: { code: 'UNAUTHORIZED', details: null } });
    const rejected = run(async () => {
      throw coded;
    });
    await expect(rejected.call()).rejects.toBe(coded);
    expect(rejected.observed).toEqual([]);
  });

  test('a DomainError with a server-side code (STORE_ERROR) is recorded, cause and all', async () => {
    const failure = new DomainError('STORE_ERROR', 'records store failed');
    const rejected = run(async () => {
      throw failure;
    });
    await expect(rejected.call()).rejects.toMatchObject({ extensions: { code: 'STORE_ERROR' } });
    expect(rejected.observed).toEqual([failure]);
  });

  test('anything else is reported and masked as INTERNAL_ERROR', async () => {
    const failure = new TypeError('x is undefined');
    const rejected = run(async () => {
      throw failure;
    });
    await expect(rejected.call()).rejects.toMatchObject({ message: 'internal error', extensions: { code: 'INTERNAL_ERROR' } });
    expect(rejected.observed).toEqual([failure]);
  });
});
