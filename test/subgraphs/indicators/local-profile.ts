import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { projectPath } from '../../../kernel/project.js';

/** The bundled sample model, as the local profile (`npm start`) serves it. */
export const SAMPLE_DIR = projectPath('examples', 'models', 're-indicators-specification');
export const SAMPLE_TEMPLATE = `${pathToFileURL(SAMPLE_DIR).href}/{version}/`;

/**
 * The local profile's indicator setup: the catalog lists the sample by file URL, the artifact
 * template points at it, and CORE_BASE_URL is unset (this process's own core facade).
 * `extraModels` adds catalog entries for other models over the same files.
 */
export function localProfileEnv(extraModels: string[] = []): Record<string, string> {
  const base_url = `${pathToFileURL(SAMPLE_DIR).href}/0.0.4/`;
  const catalog = [{ model: 're-indicators-specification', version: '0.0.4', base_url }, ...extraModels.map((model) => ({ model, version: '1.0', base_url }))];
  return { REGISTRY_CATALOG_JSON: JSON.stringify(catalog), REGISTRY_ALLOW_FILE_URLS: 'true', ARTIFACT_BASE_URL_TEMPLATE: SAMPLE_TEMPLATE };
}

/** `example-assessment.request.json`: `{payload}` of a valid sample assessment. */
export function sampleRequest(): { payload: Record<string, unknown> } {
  return JSON.parse(readFileSync(`${SAMPLE_DIR}/0.0.4/example-assessment.request.json`, 'utf8'));
}

/** Its expected scores: P1 = 3 × 0.6 + 5 × 0.4, P2 = 4 × 1, P3 fixed 5; total = (3.8 × 0.4 + 4 × 0.35 + 5 × 0.25) / 5. */
export const SAMPLE_SCORES = { parameters: [3.8, 4, 5], total: 0.834 };
