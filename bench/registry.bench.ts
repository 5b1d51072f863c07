import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { compileValidators } from '../subgraphs/models/domain/validation/compile-validators.js';
import { type Figure, round } from './figures.js';
import { PUBLISHED_0_0_4, sharedDataPresent } from './fixtures.js';

/** Parse and compile the three validators of the published 0.0.4 artifacts, as a registry load does. */
export async function benchRegistryLoad(): Promise<Figure[]> {
  if (!sharedDataPresent()) {
    console.warn('registry load bench skipped: ../shared/data is absent');
    return [];
  }
  const read = (name: string) => readFileSync(path.join(PUBLISHED_0_0_4, name), 'utf8');
  const texts = { schema: read('schema.json'), shacl: read('shacl.ttl'), owl: read('model.ttl') };
  const started = performance.now();
  const compiled = compileValidators(texts, 'Assessment');
  const elapsed = performance.now() - started;
  if (compiled.problems.length > 0) throw new Error(`0.0.4 artifacts did not compile: ${JSON.stringify(compiled.problems)}`);
  return [
    {
      id: 'load.re_0_0_4.ms',
      value: round(elapsed, 0),
      unit: 'ms',
      target: 3000,
      better: 'lower',
      note: 'parse + compile JSON Schema (ajv), SHACL shapes index and OWL checks of re-indicators 0.0.4, first load in a fresh process',
    },
  ];
}
