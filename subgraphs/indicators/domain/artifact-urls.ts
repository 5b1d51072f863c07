import { withoutSecrets } from '../../../kernel/display-url.js';

/** Where the artifacts of one model version live, derived from `ARTIFACT_BASE_URL_TEMPLATE`. */
export const VERSION_PLACEHOLDER = '{version}';

/** doc 02: the artifact names under a version's base. */
const ARTIFACT_FILES = {
  calculation_url: 'calculation.json',
  shacl_url: 'shacl.ttl',
  schema_url: 'schema.json',
  owl_url: 'owl.ttl',
} as const;

/**
 * A version is substituted into URLs as one path segment: `.`/`..` would climb out of the template's
 * directory and separators or control characters would make another path, so they are refused.
 */
export function isVersionSegment(version: string): boolean {
  return version !== '' && version !== '.' && version !== '..' && !/[\s/\\\p{Cc}]/u.test(version);
}

export interface ArtifactUrls {
  model_version: string;
  base_url: string;
  calculation_url: string;
  shacl_url: string;
  schema_url: string;
  owl_url: string;
}

/**
 * The base ends with `/` so artifact names resolve under it rather than replacing its last segment.
 * The version is percent-encoded: it comes from the request body and must stay one path segment.
 */
export function artifactBaseUrl(template: string, version: string): string {
  const base = template.replaceAll(VERSION_PLACEHOLDER, encodeURIComponent(version));
  return base.endsWith('/') ? base : `${base}/`;
}

export function artifactUrls(template: string, version: string): ArtifactUrls {
  const base = new URL(artifactBaseUrl(template, version)).href;
  const at = (file: string) => new URL(file, base).href;
  return {
    model_version: version,
    base_url: base,
    calculation_url: at(ARTIFACT_FILES.calculation_url),
    shacl_url: at(ARTIFACT_FILES.shacl_url),
    schema_url: at(ARTIFACT_FILES.schema_url),
    owl_url: at(ARTIFACT_FILES.owl_url),
  };
}

/** For `/health`: the calculation artifact's URL with the placeholder left in. */
export function calculationUrlTemplate(template: string): string {
  const base = template.endsWith('/') ? template : `${template}/`;
  return `${base}${ARTIFACT_FILES.calculation_url}`;
}

/** The URLs as answers show them: the template's credentials and query string stay in the service. */
export function shownUrls(urls: ArtifactUrls): ArtifactUrls {
  return Object.fromEntries(Object.entries(urls).map(([name, url]) => [name, name === 'model_version' ? url : withoutSecrets(url)])) as unknown as ArtifactUrls;
}
