import { randomUUID } from 'node:crypto';
import type { RequestPlugin } from './pipeline.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Every request gets an id: a well-formed incoming `x-request-id` is honoured (so traces join up
 * across the gateway and its subgraphs), otherwise a new one. Doors answer it in `x-request-id`,
 * remote subgraph fetches send it on, logs carry it.
 */
export function requestId(): RequestPlugin {
  return {
    onRequest(exchange, request) {
      const incoming = request.headers['x-request-id'];
      exchange.requestId = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
    },
    onSubgraphFetch(fetch, send) {
      fetch.headers['x-request-id'] = fetch.context.requestId;
      return send();
    },
  };
}
