import { type RegistrySources, ModelRegistry } from '../../../../subgraphs/models/domain/registry/model-registry.js';
import { prepareArtifacts } from '../../../../subgraphs/models/domain/validation/prepare-artifacts.js';

/**
 * The registry's own rules, in memory (its ports answered by plain objects: no HTTP, no files, no
 * worker thread): lookups, artifacts, validation, and a refresh that swaps a complete index in or
 * keeps the working one.
 */
const SCHEMA = 'https://models.test/widget/1.0/schema.json';
const WIDGET_SCHEMA = JSON.stringify({ type: 'object', required: ['id'], properties: { id: { type: 'string' } } });

function registryOf(catalog: () => unknown, bodies: Record<string, string>, prepared: string[] = []): ModelRegistry {
  const sources: RegistrySources = {
    catalog: { load: async () => catalog() },
    artifacts: { fetch: async (url) => (url in bodies ? { found: true, body: Buffer.from(bodies[url]!) } : { found: false }) },
    preparer: {
      prepare: async (texts, rootClass) => {
        prepared.push(texts.schema ?? '(no schema)');
        return prepareArtifacts(texts, rootClass);
      },
    },
  };
  return new ModelRegistry(sources);
}

const widgets = [
  { model: 'widget', version: '1.0', label: 'Widgets', schema_url: SCHEMA },
  { model: 'gadget', version: '2.0' },
];

test('lists model versions by model, then version; a lookup finds one or answers null; get names the missing one', async () => {
  const registry = registryOf(() => widgets, { [SCHEMA]: WIDGET_SCHEMA });
  await registry.load();
  expect(registry.list().map((m) => `${m.model} ${m.version}`)).toEqual(['gadget 2.0', 'widget 1.0']);
  expect(registry.find('widget', '1.0')).toMatchObject({ label: 'Widgets' });
  expect(registry.find('widget', '9.9')).toBeNull();
  expect(() => registry.get('widget', '9.9')).toThrow(expect.objectContaining({ code: 'MODEL_NOT_FOUND', details: { model: 'widget', version: '9.9' } }));
});

test('serves an artifact as fetched, with an entity tag; one the version does not publish is ARTIFACT_NOT_FOUND', async () => {
  const registry = registryOf(() => widgets, { [SCHEMA]: WIDGET_SCHEMA });
  await registry.load();
  const { body, etag } = registry.artifact('widget', '1.0', 'schema');
  expect(body.toString()).toBe(WIDGET_SCHEMA);
  expect(etag).toMatch(/^"/);
  expect(() => registry.artifact('widget', '1.0', 'shacl')).toThrow(expect.objectContaining({ code: 'ARTIFACT_NOT_FOUND' }));
});

test("validates a payload with the version's validators: JSON Schema, SHACL and OWL results, in that order", async () => {
  const registry = registryOf(() => widgets, { [SCHEMA]: WIDGET_SCHEMA });
  await registry.load();
  const good = await registry.validate('widget', '1.0', { id: 'w-1' });
  expect(good.passed).toBe(true);
  expect(good.results.map((r) => r.kind)).toEqual(['JsonSchema', 'Shacl', 'Owl']);
  const bad = await registry.validate('widget', '1.0', { id: 5 });
  expect(bad.passed).toBe(false);
  expect(bad.results[0]!.violations[0]).toMatchObject({ path: '$.id', severity: 'Error' });
  await expect(registry.validate('widget', '9.9', {})).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND' });
});

test('a refresh swaps in the new catalog at once; one whose artifact fails keeps serving the working build and reports why', async () => {
  let catalog: unknown = widgets;
  const bodies: Record<string, string> = { [SCHEMA]: WIDGET_SCHEMA };
  const registry = registryOf(() => catalog, bodies);
  await registry.load();

  catalog = [...widgets, { model: 'sprocket', version: '0.1' }];
  expect((await registry.refresh()).models_found).toBe(3);
  expect(registry.find('sprocket', '0.1')).not.toBeNull();

  bodies[SCHEMA] = '{ not json';
  const report = await registry.refresh();
  expect(report.errors).toEqual([expect.objectContaining({ model: 'widget', version: '1.0', artifact: 'schema' })]);
  expect((await registry.validate('widget', '1.0', { id: 5 })).passed).toBe(false); // the previous schema still checks
});

test('a refresh compiles only the versions whose artifacts or root class changed; the others keep their validators', async () => {
  let catalog: Array<Record<string, string | undefined>> = widgets;
  const bodies: Record<string, string> = { [SCHEMA]: WIDGET_SCHEMA };
  const prepared: string[] = [];
  const registry = registryOf(() => catalog, bodies, prepared);
  await registry.load();
  expect(prepared).toHaveLength(2);

  catalog = widgets.map((entry) => ({ ...entry, label: `${entry.model}, relabelled` }));
  await registry.refresh();
  expect(prepared).toHaveLength(2);
  expect(registry.find('widget', '1.0')).toMatchObject({ label: 'widget, relabelled' });
  expect((await registry.validate('widget', '1.0', { id: 5 })).passed).toBe(false);

  bodies[SCHEMA] = JSON.stringify({ type: 'object', required: ['id'], properties: { id: { type: 'number' } } });
  await registry.refresh();
  expect(prepared.slice(2)).toEqual([bodies[SCHEMA]]);
  expect((await registry.validate('widget', '1.0', { id: 5 })).passed).toBe(true);

  catalog = catalog.map((entry) => (entry.model === 'widget' ? { ...entry, root_class: 'Widget' } : entry));
  await registry.refresh();
  expect(prepared.slice(3)).toEqual([bodies[SCHEMA]]);
});

test('a catalog that cannot be loaded is REGISTRY_ERROR and the index in use stays', async () => {
  let fail = false;
  const registry = registryOf(
    () => {
      if (fail) throw new Error('catalog host down');
      return widgets;
    },
    { [SCHEMA]: WIDGET_SCHEMA },
  );
  await registry.load();
  fail = true;
  await expect(registry.refresh()).rejects.toMatchObject({ code: 'REGISTRY_ERROR' });
  expect(registry.list()).toHaveLength(2);
});
