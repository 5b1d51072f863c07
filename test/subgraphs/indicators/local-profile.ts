import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectPath } from '../../../kernel/project.js';
import { stopAtScopeEnd } from '../../support/cleanup.js';

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

/**
 * The sample model in two versions that repeat the same local keys with other contents, as model
 * releases do: 0.0.4 as bundled, and 0.0.5 with the same indicators, parameters, questions and
 * answers under their 0.0.4 keys but other texts and scores (its JSON Schema, SHACL and OWL
 * the sample's). 0.0.4 already repeats keys across indicators (`Q1.1` is a question of both). A
 * temporary folder of the test's (0.0.4 linked to the sample, 0.0.5 beside it), removed at the end
 * of the scope that made it.
 */
export function twoVersionsProfile(): Record<string, string> {
  const root = mkdtempSync(path.join(tmpdir(), 'two-versions-'));
  stopAtScopeEnd(() => rmSync(root, { recursive: true, force: true }));
  symlinkSync(path.join(SAMPLE_DIR, '0.0.4'), path.join(root, '0.0.4'), 'dir');
  mkdirSync(path.join(root, '0.0.5'));
  for (const file of ['schema.json', 'shacl.ttl', 'owl.ttl']) symlinkSync(path.join(SAMPLE_DIR, '0.0.4', file), path.join(root, '0.0.5', file));
  writeFileSync(path.join(root, '0.0.5', 'calculation.json'), JSON.stringify(nextRelease(JSON.parse(readFileSync(path.join(SAMPLE_DIR, '0.0.4', 'calculation.json'), 'utf8')))));
  const base = pathToFileURL(root).href;
  const catalog = ['0.0.4', '0.0.5'].map((version) => ({ model: 're-indicators-specification', version, base_url: `${base}/${version}/` }));
  return { REGISTRY_CATALOG_JSON: JSON.stringify(catalog), REGISTRY_ALLOW_FILE_URLS: 'true', ARTIFACT_BASE_URL_TEMPLATE: `${base}/{version}/` };
}

/** 0.0.4's calculation artifact as 0.0.5: every key kept, every text and answer score changed. */
function nextRelease(calculation: any): unknown {
  for (const indicator of Object.values<any>(calculation.indicator_configurations)) {
    for (const parameter of indicator.parameters) {
      parameter.name = `${parameter.name ?? parameter.parameter_ref} (0.0.5)`;
      for (const question of parameter.questions ?? []) {
        question.text = `${question.text ?? question.question_id} (0.0.5)`;
        for (const answer of question.answers) {
          answer.text = `${answer.text ?? answer.answer_id} (0.0.5)`;
          answer.score = 5 - answer.score;
        }
      }
    }
  }
  return { ...calculation, model_version: '0.0.5' };
}
