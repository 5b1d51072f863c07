import { readFileSync } from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { compileValidators } from '../subgraphs/models/domain/validation/compile-validators.js';
import { prepareArtifacts } from '../subgraphs/models/domain/validation/prepare-artifacts.js';
import { projectPath } from '../kernel/project.js';
import { type Figure, round } from './figures.js';
import { PUBLISHED_0_0_4, publishedCatalogEntry, sharedDataPresent, startBenchSystem } from './fixtures.js';

/** Parse and compile the three validators of the published 0.0.4 artifacts, as a registry load does (here in one thread). */
export async function benchRegistryLoad(): Promise<Figure[]> {
  if (!sharedDataPresent()) {
    console.warn('registry load bench skipped: ../shared/data is absent');
    return [];
  }
  const read = (name: string) => readFileSync(path.join(PUBLISHED_0_0_4, name), 'utf8');
  const texts = { schema: read('schema.json'), shacl: read('shacl.ttl'), owl: read('model.ttl') };
  const started = performance.now();
  const compiled = await compileValidators(prepareArtifacts(texts, 'Assessment'), 'Assessment');
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
    await refreshLoopBlock(
      'published_x3',
      [0, 1, 2].map((i) => ({ ...publishedCatalogEntry('Assessment'), version: `0.0.4-copy-${i}` })),
      'three copies of the published 0.0.4',
    ),
    await refreshLoopBlock('example', [exampleCatalogEntry()], 'the example model of the local profile'),
  ];
}

const REFRESHES = 5;

/**
 * How long a registry refresh keeps the event loop from answering anything else
 * (the longest delay `monitorEventLoopDelay` saw during a refresh, worst of five, after a warm-up
 * refresh at start-up). Requests arriving meanwhile wait at least that long.
 */
async function refreshLoopBlock(name: string, catalog: unknown[], what: string): Promise<Figure> {
  const system = await startBenchSystem({ REGISTRY_CATALOG_JSON: JSON.stringify(catalog), REGISTRY_REFRESH_MIN_INTERVAL_SECS: '0' });
  try {
    const registry = system.services.models!.registry;
    let worst = 0;
    for (let i = 0; i < REFRESHES; i++) {
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const report = await registry.refresh();
      // The delay of the loop's last turn is recorded on the next one.
      await sleep(20);
      delay.disable();
      if (report.errors.length > 0) throw new Error(`refresh reported ${JSON.stringify(report.errors)}`);
      worst = Math.max(worst, delay.max / 1e6);
    }
    return {
      id: `load.refresh_loop_block.${name}.ms`,
      value: round(worst, 0),
      unit: 'ms',
      better: 'lower',
      note: `longest event-loop delay during a registry refresh of ${what} (file URLs), worst of ${REFRESHES} refreshes after the start-up load`,
    };
  } finally {
    await system.stop();
  }
}

function exampleCatalogEntry() {
  const base = pathToFileURL(projectPath('examples', 'models', 're-indicators-specification', '0.0.4')).href;
  return { model: 're-indicators-specification', version: '0.0.4', base_url: `${base}/`, root_class: 'Assessment' };
}
