import { DomainError } from '../../../../kernel/errors.js';

export type ArtifactKind = 'schema' | 'shacl' | 'owl';
export const ARTIFACT_KINDS: readonly ArtifactKind[] = ['schema', 'shacl', 'owl'];

/** File names under an entry's `base_url` (DECISIONS section 3). */
const ARTIFACT_FILE: Record<ArtifactKind, string> = { schema: 'schema.json', shacl: 'shacl.ttl', owl: 'owl.ttl' };

export interface CatalogEntry {
  model: string;
  version: string;
  /** Artifact URLs; an absent kind has no artifact (its validator passes). */
  artifactUrls: Partial<Record<ArtifactKind, string>>;
  rootClass?: string;
  /** Free text shown where the entry is listed (the local profile labels its sample this way). */
  label?: string;
}

/**
 * Parses a catalog: a JSON array of entries or `{"models": [...]}`. The whole catalog is rejected
 * when any entry is malformed or a (model, version) pair repeats, so a refresh never swaps in half
 * a catalog.
 */
export function parseCatalog(document: unknown): CatalogEntry[] {
  const list = Array.isArray(document) ? document : (document as { models?: unknown } | null)?.models;
  if (!Array.isArray(list)) throw catalogError('catalog must be a JSON array of entries or {"models": [...]}');
  const entries = list.map((raw, index) => parseEntry(raw, index));
  rejectDuplicates(entries);
  return entries;
}

function parseEntry(raw: unknown, index: number): CatalogEntry {
  if (!isObject(raw)) throw catalogError(`catalog entry ${index} is not an object`);
  const model = requiredString(raw, 'model', index);
  const version = requiredString(raw, 'version', index);
  const baseUrl = optionalString(raw, 'base_url', index);
  const artifactUrls: Partial<Record<ArtifactKind, string>> = {};
  for (const kind of ARTIFACT_KINDS) {
    const url = optionalString(raw, `${kind}_url`, index) ?? (baseUrl && joinUrl(baseUrl, ARTIFACT_FILE[kind]));
    if (url) artifactUrls[kind] = url;
  }
  return {
    model,
    version,
    artifactUrls,
    rootClass: optionalString(raw, 'root_class', index),
    label: optionalString(raw, 'label', index),
  };
}

function rejectDuplicates(entries: CatalogEntry[]): void {
  const seen = new Set<string>();
  for (const { model, version } of entries) {
    const key = JSON.stringify([model, version]);
    if (seen.has(key)) throw catalogError(`catalog lists ${model} ${version} twice`);
    seen.add(key);
  }
}

function joinUrl(base: string, file: string): string {
  return base.endsWith('/') ? base + file : `${base}/${file}`;
}

function requiredString(raw: Record<string, unknown>, key: string, index: number): string {
  const value = optionalString(raw, key, index);
  if (!value) throw catalogError(`catalog entry ${index} needs a non-empty "${key}"`);
  return value;
}

function optionalString(raw: Record<string, unknown>, key: string, index: number): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw catalogError(`catalog entry ${index}: "${key}" must be a string`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function catalogError(message: string): DomainError {
  return new DomainError('REGISTRY_ERROR', `invalid catalog: ${message}`);
}
