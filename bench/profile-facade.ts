import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { profileWhile } from './cpu-profile.js';
import { type LoadRequest, load } from './load.js';
import { IDENTICAL_VARIABLES, PASSPORT_QUERY, VARIED_VARIABLES, VARIED_VERSIONS, benchCatalog, createRecords } from './gateway.bench.js';
import { calculationArtifactHost, computeRequest, publishedCatalogEntry, sharedAssessment, sharedDataPresent, startBenchSystem } from './fixtures.js';

/**
 * Puts one facade route under load and records a CPU profile of the serving process only (the
 * load generator is a child process), as `npm run bench` does for its `facade.*.profile_top5_pct`
 * figures, to a file for a closer look:
 *   node dist/bench/profile-facade.js models|validate|compute|passport|passport_varied [seconds] [out.cpuprofile]
 *   node dist/bench/cpu-profile-summary.js <out.cpuprofile>
 * Findings and what was done about them: bench/PROFILE.md.
 */
const ROUTES: Record<string, () => LoadRequest & { facade: string }> = {
  models: () => ({ facade: 'core', method: 'GET', path: '/models' }),
  validate: () => ({ facade: 'core', method: 'POST', path: '/models/re-indicators-specification/versions/0.0.4:validate', body: { payload: sharedAssessment() } }),
  compute: () => ({ facade: 'indicators', method: 'POST', path: '/compute', body: computeRequest() }),
  // The gateway bench's query over the three subgraphs, on the in-process gateway: its identical load, and its varied one.
  passport: () => ({ facade: 'gateway', method: 'POST', path: '/graphql', body: { query: PASSPORT_QUERY, variables: IDENTICAL_VARIABLES } }),
  passport_varied: () => ({ facade: 'gateway', method: 'POST', path: '/graphql', body: { query: PASSPORT_QUERY, variables: IDENTICAL_VARIABLES }, variableSets: VARIED_VARIABLES }),
};

async function main(): Promise<void> {
  if (!sharedDataPresent()) throw new Error('../shared/data is absent');
  const [name = 'models', seconds = '10', out = `/tmp/facade-${name}.cpuprofile`] = process.argv.slice(2);
  const request = ROUTES[name]?.();
  if (!request) throw new Error(`unknown route ${name}; one of ${Object.keys(ROUTES).join(', ')}`);
  const artifacts = await calculationArtifactHost();
  // No root class for /compute: its payload is not a whole Assessment (DECISIONS section 5).
  const entry = publishedCatalogEntry(name === 'compute' ? undefined : 'Assessment');
  const catalog = name.startsWith('passport') ? benchCatalog() : [entry];
  const system = await startBenchSystem({ REGISTRY_CATALOG_JSON: JSON.stringify(catalog), ...artifacts.env });
  try {
    const base = `http://127.0.0.1:${system.ports[request.facade]}`;
    if (name.startsWith('passport')) {
      for (const version of name === 'passport' ? ['0.0.4'] : VARIED_VERSIONS) await createRecords(`http://127.0.0.1:${system.ports.core}`, version);
    }
    await load(base, request, { seconds: 3 });
    const { result, profile } = await profileWhile(() => load(base, request, { seconds: Number(seconds) }));
    writeFileSync(out, JSON.stringify(profile));
    console.log(JSON.stringify(result), '→', out);
  } finally {
    await system.stop();
    artifacts.close();
  }
}

await main();
