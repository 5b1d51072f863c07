import { GraphQLError, parse, print } from 'graphql';
import { readCommittedSupergraph } from '../../../gateway/committed-supergraph.js';
import { ClientAliases } from '../../../gateway/executor/client-aliases.js';

/**
 * Issue 35: the aliases a planner could meet are renamed in the document it plans (and the fetches
 * ask for), and given back to the client: what is renamed, what is not, and that nothing renamed
 * can meet a name of the client's or of the schema.
 */
const aliases = new ClientAliases(await readCommittedSupergraph());
const planned = (query: string) => print(aliases.planned(parse(query)));

describe('which aliases the planned document renames', () => {
  test.each([
    // Field names of the supergraph (keys, required fields), `__typename`, and names the planners use for their own aliases.
    ['{ records { nodes { model: version version: model } } }', '{ records { nodes { _alias_model: version _alias_version: model } } }'],
    ['{ record(id: "r") { payload: modelVersion { model } } }', '{ record(id: "r") { _alias_payload: modelVersion { model } } }'],
    ['{ record(id: "r") { __typename: id _internal_qp_alias_0: model } }', '{ record(id: "r") { _alias___typename: id _alias__internal_qp_alias_0: model } }'],
    // A name the renaming itself uses, written by the client: renamed again, so it cannot meet the one renamed for `x`.
    ['{ record(id: "r") { _alias_id: model id: version } }', '{ record(id: "r") { _alias__alias_id: model _alias_id: version } }'],
    // In fragments and root fields too.
    ['{ ...Q } fragment Q on Query { model: modelVersionCount }', '{ ...Q } fragment Q on Query { _alias_model: modelVersionCount }'],
  ])('%s', (query, expected) => {
    expect(planned(query)).toBe(print(parse(expected)));
  });

  test.each(['{ records { nodes { id m: model v: version } } }', '{ record(id: "r") { id: id model } }', '{ a: modelVersionCount b: modelVersionCount }'])(
    'none it could meet: %s is planned as it came (the same document)',
    (query) => {
      const document = parse(query);
      expect(aliases.planned(document)).toBe(document);
    },
  );

  test('each document is renamed once', () => {
    const document = parse('{ record(id: "r") { id: model } }');
    expect(aliases.planned(document)).toBe(aliases.planned(document));
  });

  test('a prefix no field of the supergraph begins with', () => {
    const own = new ClientAliases('type Query { _alias_x: Int __alias_y: Int x: Int }');
    expect(print(own.planned(parse('{ x: _alias_x }')))).toBe(print(parse('{ ___alias_x: _alias_x }')));
    expect(own.clientName('___alias_x')).toBe('x');
    expect(own.clientName('_alias_x')).toBe('_alias_x');
  });
});

describe("the client's names back", () => {
  test('response names and error paths', () => {
    expect(aliases.clientName('_alias__alias_id')).toBe('_alias_id');
    expect(aliases.clientName('id')).toBe('id');
    const unchanged = new GraphQLError('plain', { path: ['records', 'nodes', 0, 'id'] });
    const [same, renamed, pathless] = aliases.clientErrors([
      unchanged,
      new GraphQLError('renamed', { path: ['_alias_model', 2, 'indicatorResult'], extensions: { code: 'STORE_ERROR' } }),
      new GraphQLError('no path'),
    ]);
    expect(same).toBe(unchanged);
    expect(renamed!.toJSON()).toEqual({ message: 'renamed', path: ['model', 2, 'indicatorResult'], extensions: { code: 'STORE_ERROR' } });
    expect(pathless!.path).toBeUndefined();
  });
});
