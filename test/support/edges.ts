import { type Answer, type TestSystem, call } from './system.js';

/**
 * One request per facade that decides on the caller's credentials, for tests that must hold at every
 * edge (hostile tokens, key set outages, forward_auth): the core and records REST facades and the
 * GraphQL gateway authenticate; the indicator facade forwards the bearer token to the core, whose
 * verdict it reports as 401 CORE_UNAUTHORIZED.
 */
export interface Edge {
  name: string;
  listener: string;
  method: string;
  path: string;
  body?: unknown;
  /** The status a caller the edge accepts gets in a system serving only the mini model. */
  acceptedStatus: number;
  /** The code this edge's envelope gives a caller whose credentials it refuses. */
  refusedCode: string;
}

const COMPUTE_REQUEST = {
  model_version: '0.0.4',
  payload: { indicator_specification_id: 'IND', parameter_assessments: [{ parameter_id: 'P1', question_answers: [] }] },
};

export const EDGES: Edge[] = [
  { name: 'core REST', listener: 'core', method: 'GET', path: '/models', acceptedStatus: 200, refusedCode: 'UNAUTHORIZED' },
  { name: 'records REST', listener: 'records', method: 'GET', path: '/records/absent-id', acceptedStatus: 404, refusedCode: 'unauthorized' },
  { name: 'GraphQL', listener: 'gateway', method: 'POST', path: '/graphql', body: { query: '{ modelVersions { model } }' }, acceptedStatus: 200, refusedCode: 'UNAUTHORIZED' },
  // Without the indicator model in the catalog an accepted caller reaches the core's 404.
  { name: 'indicators REST (via the core)', listener: 'indicators', method: 'POST', path: '/compute', body: COMPUTE_REQUEST, acceptedStatus: 404, refusedCode: 'CORE_UNAUTHORIZED' },
];

/** The edges that answer AUTH_UNAVAILABLE themselves (the indicator facade reports any core failure as 502). */
export const AUTHENTICATING_EDGES = EDGES.filter((edge) => edge.listener !== 'indicators');

export function probe(sut: TestSystem, edge: Edge, headers: Record<string, string> = {}): Promise<Answer> {
  return call(sut.url(edge.listener), edge.method, edge.path, { body: edge.body, headers });
}

/** The error code of any facade's envelope: `{code}` on REST, `errors[0].extensions.code` on GraphQL. */
export function errorCode(answer: Answer): string | undefined {
  return answer.json?.code ?? answer.json?.errors?.[0]?.extensions?.code;
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
