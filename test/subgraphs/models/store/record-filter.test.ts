import { DomainError } from '../../../../kernel/errors.js';
import { translateQuery } from '../../../../subgraphs/models/store/query-translator.js';
import { DIALECTS } from './support.js';
import { DEFAULT_LIMIT, parseInstant, parseRecordFilter } from '../../../../kernel/records/record-filter.js';

function rejection(filter: unknown): DomainError {
  try {
    parseRecordFilter(filter);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('the filter was accepted');
}

describe('parseRecordFilter', () => {
  test('no filter, or an empty one, means everything in the default page', () => {
    const everything = { where: [], sort: [], limit: DEFAULT_LIMIT, offset: 0 };
    expect(parseRecordFilter(undefined)).toEqual(everything);
    expect(parseRecordFilter(null)).toEqual(everything);
    expect(parseRecordFilter({})).toEqual(everything);
  });

  test('fields become columns or payload paths', () => {
    const { where, sort } = parseRecordFilter({
      where: [
        { field: 'id', op: 'eq', value: 'x' },
        { field: 'payload.a-b.c_d[0][12].e', op: 'exists', value: true },
      ],
      sort: [{ field: 'updated_at', direction: 'desc' }, { field: 'payload.n' }],
    });
    expect(where.map((condition) => condition.field)).toEqual([
      { kind: 'text', column: 'id' },
      { kind: 'payload', path: ['a-b', 'c_d', 0, 12, 'e'] },
    ]);
    expect(sort).toEqual([
      { field: { kind: 'timestamp', column: 'updated_at' }, direction: 'desc' },
      { field: { kind: 'payload', path: ['n'] }, direction: 'asc' },
    ]);
  });

  test('timestamp operands are normalised to UTC milliseconds', () => {
    const { where } = parseRecordFilter({
      where: [
        { field: 'created_at', op: 'gte', value: '2024-03-01T10:00:00+02:00' },
        { field: 'updated_at', op: 'in', value: ['2024-03-01', '2024-03-01T08:00:00.123456Z'] },
      ],
    });
    expect(where).toEqual([
      { op: 'gte', field: { kind: 'timestamp', column: 'created_at' }, value: '2024-03-01T08:00:00.000Z' },
      {
        op: 'in',
        field: { kind: 'timestamp', column: 'updated_at' },
        values: ['2024-03-01T00:00:00.000Z', '2024-03-01T08:00:00.123Z'],
      },
    ]);
  });

  test.each<[string, unknown, string]>([
    ['a filter that is not an object', [], 'filter'],
    ['an unknown filter member', { page: 1 }, 'filter'],
    ['where not an array', { where: { field: 'id' } }, 'where'],
    ['a condition that is not an object', { where: ['id = 1'] }, 'where[0]'],
    ['an unknown condition member', { where: [{ field: 'id', op: 'eq', value: 'x', mode: 'i' }] }, 'where[0]'],
    ['an unknown storage field', { where: [{ field: 'owner', op: 'eq', value: 'x' }] }, 'where[0]'],
    ['payload without a key', { where: [{ field: 'payload', op: 'eq', value: {} }] }, 'where[0]'],
    ['a key with other characters', { where: [{ field: 'payload.a b', op: 'eq', value: 1 }] }, 'where[0]'],
    ['a quote in a key', { where: [{ field: 'payload.a"b', op: 'eq', value: 1 }] }, 'where[0]'],
    ['a non-numeric index', { where: [{ field: 'payload.a[x]', op: 'eq', value: 1 }] }, 'where[0]'],
    ['an index first', { where: [{ field: 'payload[0]', op: 'eq', value: 1 }] }, 'where[0]'],
    ['a field that is not a string', { where: [{ field: 1, op: 'eq', value: 1 }] }, 'where[0]'],
    ['an unknown operator', { where: [{ field: 'id', op: 'like', value: 'x' }] }, 'where[0]'],
    ['a missing value', { where: [{ field: 'id', op: 'eq' }] }, 'where[0]'],
    ['in without an array', { where: [{ field: 'id', op: 'in', value: 'x' }] }, 'where[0]'],
    ['in with an empty array', { where: [{ field: 'id', op: 'in', value: [] }] }, 'where[0]'],
    ['in with an object', { where: [{ field: 'id', op: 'in', value: [{ a: 1 }] }] }, 'where[0]'],
    ['exists without a boolean', { where: [{ field: 'id', op: 'exists', value: 'yes' }] }, 'where[0]'],
    ['a range with a boolean', { where: [{ field: 'payload.n', op: 'gt', value: true }] }, 'where[0]'],
    ['a range with null', { where: [{ field: 'payload.n', op: 'lte', value: null }] }, 'where[0]'],
    ['a range with an array', { where: [{ field: 'payload.n', op: 'lt', value: [1] }] }, 'where[0]'],
    ['a timestamp that is not ISO 8601', { where: [{ field: 'created_at', op: 'gt', value: 'yesterday' }] }, 'where[0]'],
    ['a timestamp given as a number', { where: [{ field: 'created_at', op: 'eq', value: 1700000000000 }] }, 'where[0]'],
    ['an impossible date', { where: [{ field: 'updated_at', op: 'lt', value: '2024-02-30' }] }, 'where[0]'],
    ['one bad timestamp in in', { where: [{ field: 'created_at', op: 'in', value: ['2024-01-01', 'soon'] }] }, 'where[0]'],
    ['contains on a timestamp', { where: [{ field: 'created_at', op: 'contains', value: '2024' }] }, 'where[0]'],
    [
      'the second condition',
      {
        where: [
          { field: 'id', op: 'eq', value: 'x' },
          { field: 'id', op: 'gt' },
        ],
      },
      'where[1]',
    ],
    ['sort not an array', { sort: 'id' }, 'sort'],
    ['an unknown sort direction', { sort: [{ field: 'id', direction: 'up' }] }, 'sort[0]'],
    ['an unknown sort field', { sort: [{ field: 'payload.' }] }, 'sort[0]'],
    ['a limit above 1000', { limit: 1001 }, 'limit'],
    ['a negative limit', { limit: -1 }, 'limit'],
    ['a fractional limit', { limit: 1.5 }, 'limit'],
    ['a limit as text', { limit: '10' }, 'limit'],
    ['a negative offset', { offset: -1 }, 'offset'],
  ])('%s is 400 BAD_REQUEST naming %s', (_, filter, at) => {
    const error = rejection(filter);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.details).toMatchObject({ at, reason: expect.any(String) });
    expect(error.message).toContain(at);
  });

  test('the details carry the offending condition as given', () => {
    const condition = { field: 'payload.x', op: 'in', value: [] };
    expect(rejection({ where: [condition] }).details).toEqual({
      at: 'where[0]',
      reason: 'in takes a non-empty array of scalars',
      given: condition,
    });
  });
});

describe('parseInstant', () => {
  test.each([
    ['2024-01-02', '2024-01-02T00:00:00.000Z'],
    ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000Z'],
    ['2024-01-02T03:04:05.5+01:30', '2024-01-02T01:34:05.500Z'],
    ['2024-01-02T03:04-0500', '2024-01-02T08:04:00.000Z'],
    ['2024-02-29T23:59:59.999999Z', '2024-02-29T23:59:59.999Z'],
    ['0099-01-01T00:00:00Z', '0099-01-01T00:00:00.000Z'],
  ])('%s is %s', (text, instant) => {
    expect(parseInstant(text)).toBe(instant);
  });

  test.each(['2023-02-29', '2024-13-01', '2024-01-02T24:00:00Z', '2024-01-02T10:60Z', '2024-1-2', '2024-01-02T10:00:00+25:00', 'now', ''])('%j is not an instant', (text) => {
    expect(parseInstant(text)).toBeNull();
  });
});

describe('translateQuery', () => {
  const filter = parseRecordFilter({
    where: [
      { field: 'payload.a[1].b', op: 'eq', value: "x'; DROP TABLE records; --" },
      { field: 'id', op: 'contains', value: 'needle-7' },
    ],
    sort: [{ field: 'payload.n', direction: 'desc' }],
    limit: 5,
    offset: 10,
  });

  test.each(['sqlite', 'postgresql'] as const)('on %s binds every value and path, the SQL holds none', (backend) => {
    const { sql, values } = translateQuery(DIALECTS[backend], filter, { subject: "o'brien", tenant: 'acme' }, { model: 'm', version: '1' });
    for (const literal of ["x'; DROP", "o'brien", 'acme', '"b"', 'needle-7']) expect(sql).not.toContain(literal);
    expect(values).toEqual(expect.arrayContaining(["o'brien", 'acme', 'm', '1', 5, 10]));
    const placeholders = sql.match(backend === 'sqlite' ? /\?(\d+)/g : /\$(\d+)/g) ?? [];
    expect(new Set(placeholders.map((placeholder) => Number(placeholder.slice(1))))).toEqual(new Set(values.map((_, index) => index + 1)));
  });
});
