import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { QuestionByIdDocument, QuestionnaireDocument } from '../generated/graphql.js';
import { formOf } from './screens.js';

/**
 * The same screens on Apollo Client 4 with its default cache: `InMemoryCache` without type policies,
 * which keys every object by `__typename` and `id`. The graph's ids are unique across it, so the
 * cache holds each object once, whichever query brought it.
 */
export function apolloClient(endpoint: string, headers: Record<string, string> = {}) {
  return new ApolloClient({ link: new HttpLink({ uri: endpoint, headers }), cache: new InMemoryCache() });
}

/** The questionnaire form of a model version, read from the cache once fetched (`cache-first`). */
export async function apolloQuestionnaireForm(client: ApolloClient, model: string, version: string) {
  const { data, error } = await client.query({ query: QuestionnaireDocument, variables: { model, version } });
  if (error) throw error;
  return data?.modelVersion ? formOf(data.modelVersion) : null;
}

/** One question fetched again by its id (Relay's refetch): the cache's object is updated in place. */
export async function apolloRefetchQuestion(client: ApolloClient, id: string) {
  const { data, error } = await client.query({ query: QuestionByIdDocument, variables: { id }, fetchPolicy: 'network-only' });
  if (error) throw error;
  return data?.node ?? null;
}
