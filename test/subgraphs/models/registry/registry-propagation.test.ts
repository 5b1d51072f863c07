import { type RegistryNotifier, type RegistrySources, ModelRegistry } from '../../../../subgraphs/models/domain/registry/model-registry.js';
import { prepareArtifacts } from '../../../../subgraphs/models/domain/validation/prepare-artifacts.js';

/**
 * Issue "Past one process", replicas that agree: the domain's part. A registry announces the
 * catalog revision it refreshed to when a caller (or a changed catalog) asked for the refresh, and
 * follows the revisions other replicas announce: coalesced (a revision it serves, or that a refresh
 * in flight brings, is not refreshed again).
 */
class FakeNotifier implements RegistryNotifier {
  announced: string[] = [];
  heard: (revision: string) => void = () => undefined;
  async announce(revision: string): Promise<void> {
    this.announced.push(revision);
  }
  async subscribe(heard: (revision: string) => void): Promise<void> {
    this.heard = heard;
  }
}

/** A catalog whose document, artifact bodies and `changed` answer a test sets; loads can be held. */
class FakeCatalog {
  document: unknown = [{ model: 'm', version: '1', schema_url: 'https://host.test/m/1/schema.json' }];
  bodies: Record<string, string> = { 'https://host.test/m/1/schema.json': '{"type":"object"}' };
  changed: boolean | Error = false;
  loads = 0;
  private held?: Promise<void>;
  private release?: () => void;

  hold(): void {
    this.held = new Promise((resolve) => (this.release = resolve));
  }
  letGo(): void {
    this.release?.();
    this.held = undefined;
  }
  sources(notifier: RegistryNotifier | undefined): RegistrySources {
    return {
      catalog: {
        load: async () => {
          this.loads++;
          await this.held;
          if (this.document instanceof Error) throw this.document;
          return this.document;
        },
        changed: async () => {
          if (this.changed instanceof Error) throw this.changed;
          return this.changed;
        },
      },
      artifacts: { fetch: async (url) => (url in this.bodies ? { found: true, body: Buffer.from(this.bodies[url]!) } : { found: false }) },
      preparer: { prepare: async (texts, rootClass) => prepareArtifacts(texts, rootClass) },
      notifier,
    };
  }
}

const revisionOf = (registry: ModelRegistry) => registry.status().catalogRevision;
const settle = () => new Promise((resolve) => setImmediate(resolve));

let catalog: FakeCatalog;
let notifier: FakeNotifier;
let failures: Error[];
let registry: ModelRegistry;

beforeEach(async () => {
  catalog = new FakeCatalog();
  notifier = new FakeNotifier();
  failures = [];
  registry = new ModelRegistry(catalog.sources(notifier), { refreshed: () => undefined, validated: () => undefined, backgroundRefreshFailed: (error) => failures.push(error) });
  await registry.load();
});

describe('the catalog revision', () => {
  test('is null before the first load, then 16 hex digits; the same catalog and artifacts give the same revision anywhere', async () => {
    const other = new ModelRegistry(catalog.sources(undefined));
    expect(revisionOf(other)).toBeNull();
    await other.load();
    expect(revisionOf(registry)).toMatch(/^[0-9a-f]{16}$/);
    expect(revisionOf(other)).toBe(revisionOf(registry));
  });

  test("changes with an entry (its label) and with an artifact's content at the same URL, not with the URL alone", async () => {
    const first = revisionOf(registry);
    catalog.document = [{ model: 'm', version: '1', schema_url: 'https://host.test/m/1/schema.json', label: 'M one' }];
    await registry.refresh();
    const labelled = revisionOf(registry);
    expect(labelled).not.toBe(first);

    catalog.bodies['https://host.test/m/1/schema.json'] = '{"type":"object","required":["id"]}';
    await registry.follow('0000000000000001');
    const republished = revisionOf(registry);
    expect(republished).not.toBe(labelled);

    catalog.bodies['https://mirror.test/schema.json'] = catalog.bodies['https://host.test/m/1/schema.json']!;
    catalog.document = [{ model: 'm', version: '1', schema_url: 'https://mirror.test/schema.json', label: 'M one' }];
    await registry.follow('0000000000000002');
    expect(revisionOf(registry)).toBe(republished);
  });
});

describe('announcing', () => {
  test("a caller's refresh announces its revision once, however many callers share it; the start-up load does not", async () => {
    expect(notifier.announced).toEqual([]);
    catalog.document = [{ model: 'n', version: '2' }];
    await Promise.all([registry.refresh(), registry.refresh(), registry.refresh()]);
    await settle();
    expect(notifier.announced).toEqual([revisionOf(registry)]);
    expect(catalog.loads).toBe(2);
  });

  test('a refresh that fails announces nothing', async () => {
    catalog.document = new Error('catalog host down');
    await expect(registry.refresh()).rejects.toMatchObject({ code: 'REGISTRY_ERROR' });
    await settle();
    expect(notifier.announced).toEqual([]);
  });
});

describe('following another replica', () => {
  test('an announced revision it serves already is not refreshed again (its own announcement coming back included)', async () => {
    await registry.refresh();
    await settle();
    notifier.heard(notifier.announced[0]!);
    await settle();
    expect(catalog.loads).toBe(2);
  });

  test("a new revision is refreshed to, right after a caller's refresh, and not announced again", async () => {
    await registry.refresh();
    catalog.document = [{ model: 'n', version: '2' }];
    await registry.follow('0123456789abcdef');
    expect(registry.list().map((v) => v.model)).toEqual(['n']);
    expect(catalog.loads).toBe(3);
    await settle();
    expect(notifier.announced).toHaveLength(1); // the caller's; following announces nothing
  });

  test('announcements heard while a refresh runs wait for it, and one that it brings costs nothing more', async () => {
    catalog.document = [{ model: 'n', version: '2' }];
    const expected = new ModelRegistry(catalog.sources(undefined));
    await expected.load();
    const loadsBefore = catalog.loads;
    catalog.hold();
    const running = registry.refresh();
    await settle();
    const followers = [registry.follow(revisionOf(expected)!), registry.follow(revisionOf(expected)!)];
    catalog.letGo();
    await Promise.all([running, ...followers]);
    expect(revisionOf(registry)).toBe(revisionOf(expected));
    expect(catalog.loads - loadsBefore).toBe(1);
  });

  test('several announcements of a new revision share one refresh', async () => {
    catalog.document = [{ model: 'n', version: '2' }];
    const expected = new ModelRegistry(catalog.sources(undefined));
    await expected.load();
    const loadsBefore = catalog.loads;
    await Promise.all([1, 2, 3].map(() => registry.follow(revisionOf(expected)!)));
    expect(catalog.loads - loadsBefore).toBe(1);
  });

  test('a revision the refresh in flight does not bring is refreshed to once more (that refresh may have started before the change)', async () => {
    const loadsBefore = catalog.loads;
    catalog.hold();
    const running = registry.refresh();
    await settle(); // the refresh has started: it is in flight
    catalog.document = [{ model: 'n', version: '2' }];
    const following = registry.follow('aaaaaaaaaaaaaaaa');
    catalog.letGo();
    await Promise.all([running, following]);
    expect(registry.list().map((v) => v.model)).toEqual(['n']);
    expect(catalog.loads - loadsBefore).toBe(2);
  });

  test('a failing refresh is reported to the observer, never rejects, and leaves the index in use', async () => {
    const before = revisionOf(registry);
    catalog.document = new Error('catalog host down');
    await expect(registry.follow('aaaaaaaaaaaaaaaa')).resolves.toBeUndefined();
    expect(failures.map((e) => e.message)).toEqual([expect.stringContaining('catalog host down')]);
    expect(revisionOf(registry)).toBe(before);
  });
});

describe('a catalog that says it changed (REGISTRY_CATALOG_POLL_SECS)', () => {
  test('unchanged: nothing is loaded; changed: refreshed and announced', async () => {
    await registry.checkCatalog();
    expect(catalog.loads).toBe(1);
    catalog.changed = true;
    catalog.document = [{ model: 'n', version: '2' }];
    await registry.checkCatalog();
    expect(catalog.loads).toBe(2);
    await settle();
    expect(notifier.announced).toEqual([revisionOf(registry)]);
  });

  test('a check that cannot be made is reported and changes nothing', async () => {
    catalog.changed = new Error('network error');
    await expect(registry.checkCatalog()).resolves.toBeUndefined();
    expect(failures.map((e) => e.message)).toEqual(['network error']);
    expect(catalog.loads).toBe(1);
  });
});
