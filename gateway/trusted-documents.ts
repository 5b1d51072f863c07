import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Request } from 'express';
import { parse, print } from 'graphql';
import { InvalidValue } from '../kernel/config/env.js';
import { RequestMistake } from '../pipeline/request-mistake.js';

/**
 * GRAPHQL_TRUSTED_DOCUMENTS: `/graphql` runs only the documents of a manifest in Apollo's persisted
 * query format (`npm run trusted-documents` writes ours, gateway/trusted-documents.json). Checked
 * in front of Apollo Server, like the document size limits (pipeline/document-size-limits.ts): Apollo Server 5 has no safelisting (that
 * is Apollo Router's), and its plugins' parsing hooks cannot refuse a request.
 */
export interface TrustedDocuments {
  /** Each listed body by its id, by the sha256 of its text and by the sha256 of its canonical print. */
  readonly bodies: ReadonlyMap<string, string>;
}

const NOT_IN_LIST = 'PERSISTED_QUERY_NOT_IN_LIST';

const MANIFEST_SHAPE = '{"format": "apollo-persisted-query-manifest", "version": 1, "operations": [{"id", "name", "type", "body"}]}';
const OPERATION_TYPES = ['query', 'mutation', 'subscription'];

interface ManifestOperation {
  id: string;
  name: string;
  type: string;
  body: string;
}

/** The manifest at `path`, checked whole (a parser of kernel/config/env.ts: startup stops on a bad file). */
export function readTrustedDocuments(path: string): TrustedDocuments {
  if (path === '') throw new InvalidValue('must be the path of a persisted query manifest (unset it to accept any document)');
  const bodies = new Map<string, string>();
  for (const operation of manifestOperations(path)) {
    const known = bodies.get(operation.id);
    if (known !== undefined && known !== operation.body) throw new InvalidValue(`${path}: id ${operation.id} names two different documents`);
    for (const key of [operation.id, sha256(operation.body), sha256(print(parseBody(path, operation)))]) {
      if (!bodies.has(key)) bodies.set(key, operation.body);
    }
  }
  return { bodies };
}

function manifestOperations(path: string): ManifestOperation[] {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'not JSON';
    throw new InvalidValue(`cannot read the persisted query manifest ${path} (${reason})`);
  }
  const { format, version, operations } = (manifest ?? {}) as Record<string, unknown>;
  if (format !== 'apollo-persisted-query-manifest' || version !== 1 || !Array.isArray(operations) || !operations.every(isOperation)) {
    throw new InvalidValue(`${path} is not a persisted query manifest: expected ${MANIFEST_SHAPE}, type one of ${OPERATION_TYPES.join(', ')}`);
  }
  return operations;
}

function isOperation(value: unknown): value is ManifestOperation {
  const { id, name, type, body } = (value ?? {}) as Record<string, unknown>;
  return typeof id === 'string' && id !== '' && typeof name === 'string' && typeof body === 'string' && OPERATION_TYPES.includes(type as string);
}

function parseBody(path: string, operation: ManifestOperation) {
  try {
    return parse(operation.body, { noLocation: true });
  } catch (error) {
    throw new InvalidValue(`${path}: operation ${operation.name} (${operation.id}) does not parse: ${(error as Error).message}`);
  }
}

/**
 * Lets a `/graphql` request through only if it names a listed document: by `documentId`
 * (GraphQL over HTTP's persisted documents, `sha256:` prefix or not), by
 * `extensions.persistedQuery.sha256Hash` (Apollo's), or by its `query` text, whose sha256 as sent or
 * of its canonical print must be listed. The request goes on carrying the listed text and no id, so
 * Apollo Server (whose automatic persisted queries are off in this mode) never sees anything else.
 * Anything else is refused: 400 PERSISTED_QUERY_NOT_IN_LIST. Other methods than GET and POST pass: Apollo
 * Server refuses them.
 */
export function trustedDocumentsGuard(documents: TrustedDocuments): (req: Request) => void {
  return (req) => {
    if (req.method !== 'GET' && req.method !== 'POST') return;
    const listed = listedBody(documents.bodies, req.method === 'GET' ? fromSearch(req) : req.body);
    if (listed.body === undefined) throw new RequestMistake([{ message: listed.refusal, code: NOT_IN_LIST }]);
    if (req.method === 'GET') req.url = withListedQuery(req.url, listed.body);
    else req.body = withListedBody(req.body as Record<string, unknown>, listed.body);
  };
}

/** What a request names, read as Apollo Server reads it. */
interface Named {
  query?: unknown;
  documentId?: unknown;
  extensions?: unknown;
}

type Verdict = { body: string; refusal?: undefined } | { body?: undefined; refusal: string };

const ONLY_TRUSTED = 'this server runs trusted documents only';

function listedBody(bodies: ReadonlyMap<string, string>, request: unknown): Verdict {
  const named = (isRecord(request) ? request : {}) as Named;
  const ids = [named.documentId, persistedQueryHash(named.extensions)].filter((id): id is string => typeof id === 'string');
  const lookUp = (id: string) => bodies.get(id) ?? bodies.get(id.replace(/^sha256:/, ''));
  return typeof named.query === 'string' ? byText(bodies, named.query, ids, lookUp) : byId(ids, lookUp);
}

function byText(bodies: ReadonlyMap<string, string>, text: string, ids: string[], lookUp: (id: string) => string | undefined): Verdict {
  const textHash = sha256(text);
  const body = bodies.get(textHash) ?? bodies.get(canonicalHash(text));
  if (body === undefined) return { refusal: `${ONLY_TRUSTED}, and the document sent is not one: send a listed document, its documentId or its extensions.persistedQuery.sha256Hash` };
  // An id sent with the text must not contradict it (Apollo Server refuses an APQ hash that does not match, too).
  if (ids.some((id) => id !== textHash && lookUp(id) !== body)) return { refusal: 'the documentId or persistedQuery hash sent does not name the document sent' };
  return { body };
}

function byId(ids: string[], lookUp: (id: string) => string | undefined): Verdict {
  if (ids.length === 0) return { refusal: `${ONLY_TRUSTED}: send a documentId, an extensions.persistedQuery.sha256Hash or the text of a listed document` };
  const body = lookUp(ids[0]!);
  if (body === undefined) return { refusal: `${ONLY_TRUSTED}, and no listed document has the id sent` };
  if (ids.some((id) => lookUp(id) !== body)) return { refusal: 'the documentId and the persistedQuery hash sent name different documents' };
  return { body };
}

function persistedQueryHash(extensions: unknown): unknown {
  return isRecord(extensions) && isRecord(extensions.persistedQuery) ? extensions.persistedQuery.sha256Hash : undefined;
}

/** The sha256 of the text's canonical print; '' (a key never listed) for text that does not parse. */
function canonicalHash(text: string): string {
  try {
    return sha256(print(parse(text, { noLocation: true })));
  } catch {
    return '';
  }
}

/** A GET's parameters; `extensions` is JSON there (Apollo Server refuses what does not parse). */
function fromSearch(req: Request): Named {
  const search = new URL(req.url, 'http://gateway').searchParams;
  return { query: search.get('query') ?? undefined, documentId: search.get('documentId') ?? undefined, extensions: parseJson(search.get('extensions')) };
}

function withListedQuery(url: string, body: string): string {
  const parsed = new URL(url, 'http://gateway');
  parsed.searchParams.set('query', body);
  parsed.searchParams.delete('documentId');
  const extensions = parseJson(parsed.searchParams.get('extensions'));
  if (isRecord(extensions)) {
    const kept = withoutPersistedQuery(extensions);
    if (kept === undefined) parsed.searchParams.delete('extensions');
    else parsed.searchParams.set('extensions', JSON.stringify(kept));
  }
  return parsed.pathname + parsed.search;
}

function withListedBody(request: Record<string, unknown>, body: string): Record<string, unknown> {
  const { documentId: _id, extensions, ...rest } = request;
  const kept = withoutPersistedQuery(extensions);
  return { ...rest, query: body, ...(kept === undefined ? {} : { extensions: kept }) };
}

/** The extensions other than `persistedQuery`, undefined when none are left (what is not an object, Apollo Server refuses). */
function withoutPersistedQuery(extensions: unknown): unknown {
  if (!isRecord(extensions)) return extensions;
  const { persistedQuery: _persisted, ...others } = extensions;
  return Object.keys(others).length > 0 ? others : undefined;
}

/** undefined when absent or not JSON (Apollo Server refuses the latter). */
function parseJson(text: string | null): unknown {
  try {
    return text === null ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
