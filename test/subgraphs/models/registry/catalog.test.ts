import { parseCatalog } from '../../../../subgraphs/models/domain/registry/catalog.js';

describe('catalog format', () => {
  test('accepts an array or {"models": [...]}; base_url derives the three artifact URLs', () => {
    const entry = { model: 'm', version: '1', base_url: 'https://host.test/m/1' };
    for (const document of [[entry], { models: [entry] }]) {
      expect(parseCatalog(document)).toEqual([
        {
          model: 'm',
          version: '1',
          artifactUrls: { schema: 'https://host.test/m/1/schema.json', shacl: 'https://host.test/m/1/shacl.ttl', owl: 'https://host.test/m/1/owl.ttl' },
          rootClass: undefined,
          label: undefined,
        },
      ]);
    }
  });

  test('explicit artifact URLs win over base_url; any may be absent', () => {
    const [entry] = parseCatalog([{ model: 'm', version: '1', schema_url: 'https://a.test/s.json', root_class: 'Assessment' }]);
    expect(entry!.artifactUrls).toEqual({ schema: 'https://a.test/s.json' });
    expect(entry!.rootClass).toBe('Assessment');
  });

  test.each([
    ['not a list', { entries: [] }],
    ['an entry without model', [{ version: '1' }]],
    ['a non-string URL', [{ model: 'm', version: '1', shacl_url: 3 }]],
    [
      'a duplicate (model, version)',
      [
        { model: 'm', version: '1' },
        { model: 'm', version: '1' },
      ],
    ],
  ])('rejects the whole catalog for %s with REGISTRY_ERROR', (_name, document) => {
    expect(() => parseCatalog(document)).toThrow(expect.objectContaining({ code: 'REGISTRY_ERROR' }));
  });
});
