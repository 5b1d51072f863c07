import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';

/** An error of the graph, with its code (`extensions.code`), e.g. `MODEL_NOT_FOUND`, `BAD_REQUEST`. */
export class GraphError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly details: unknown,
  ) {
    super(message);
  }
}

interface Answer<T> {
  data?: T | null;
  errors?: Array<{ message: string; extensions?: { code?: string; details?: unknown } }>;
}

/**
 * A minimal typed client: POST with `content-type: application/json`, which the gateway's CSRF
 * prevention accepts (a GET would need the `apollo-require-preflight` header). Variables and the
 * answer are typed by the operation's generated TypedDocumentNode.
 */
export function graphClient(endpoint: string, headers: Record<string, string> = {}) {
  return async function request<TData, TVariables>(document: TypedDocumentNode<TData, TVariables>, variables: TVariables): Promise<TData> {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: print(document), variables }),
    });
    const answer = (await response.json()) as Answer<TData>;
    const [error] = answer.errors ?? [];
    if (error) throw new GraphError(error.message, error.extensions?.code ?? 'INTERNAL_ERROR', error.extensions?.details ?? null);
    return answer.data!;
  };
}

export type GraphRequest = ReturnType<typeof graphClient>;
