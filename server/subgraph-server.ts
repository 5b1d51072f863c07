import express from 'express';
import { rejectUnreadableBody } from '../gateway/unreadable-body.js';
import { type GraphQLSchema, execute } from 'graphql';
import { DocumentCache } from '../gateway/document-cache.js';
import { type AccessControl, requestContext } from '../kernel/graphql/request-context.js';
import { credentialSourceOf } from '../kernel/identity/identity.js';
import { requestIdOf } from '../rest-facade/http/request-id.js';

/**
 * One subgraph behind its own GraphQL endpoint (distributed mode). It authenticates the caller
 * from the forwarded credentials itself, exactly like the edge: it trusts no asserted identity.
 */
export function subgraphApp(schema: GraphQLSchema, access: AccessControl, maxRequestBytes: number): express.Express {
  const documents = new DocumentCache(schema);
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: maxRequestBytes }));
  app.post('/graphql', async (req, res) => {
    const { query, variables, operationName } = (req.body ?? {}) as { query?: string; variables?: Record<string, unknown>; operationName?: string };
    const cached = documents.get(typeof query === 'string' ? query : '');
    if ('errors' in cached) {
      res.status(400).json({ errors: cached.errors.map((e) => ({ message: e.message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) });
      return;
    }
    const context = requestContext(access, credentialSourceOf(req), requestIdOf(req));
    res.json(await execute({ schema, document: cached.document, variableValues: variables, operationName, contextValue: context }));
  });
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(rejectUnreadableBody);
  return app;
}
