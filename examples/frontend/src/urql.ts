import { Client, fetchExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { QuestionByIdDocument, QuestionnaireDocument } from '../generated/graphql.js';
import { formOf } from './screens.js';

/**
 * The same screens on urql with graphcache, its normalized cache, configured with nothing: it keys
 * every object by `__typename` and `id`. POST, not urql's default GET, which the gateway's CSRF
 * prevention refuses without a preflight header (README, "CSRF").
 */
export function urqlClient(endpoint: string, headers: Record<string, string> = {}) {
  return new Client({ url: endpoint, preferGetMethod: false, fetchOptions: { headers }, exchanges: [cacheExchange({}), fetchExchange] });
}

/** The questionnaire form of a model version, answered from the cache once fetched (`cache-first`). */
export async function urqlQuestionnaireForm(client: Client, model: string, version: string) {
  const { data, error } = await client.query(QuestionnaireDocument, { model, version }).toPromise();
  if (error) throw error;
  return data?.modelVersion ? formOf(data.modelVersion) : null;
}

/** One question fetched again by its id (Relay's refetch), from the network. */
export async function urqlRefetchQuestion(client: Client, id: string) {
  const { data, error } = await client.query(QuestionByIdDocument, { id }, { requestPolicy: 'network-only' }).toPromise();
  if (error) throw error;
  return data?.node ?? null;
}
