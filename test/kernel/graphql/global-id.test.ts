import { globalId, isQuestionnaireType, parseGlobalId, questionnaireItemKey, versionOfQuestionnaireItem } from '../../../kernel/graphql/global-id.js';

/** The graph's global ids (issue 37): opaque, one spelling per object, and nothing else mistaken for one. */
describe('global ids', () => {
  test('an id reads back as its type and key, whatever the key holds', () => {
    for (const key of ['["re-indicators-specification","0.0.4"]', 'abcdefghijkl0.0.4', 'ü:/\\ \u0000', '']) {
      const id = globalId('ModelVersion', key);
      expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(parseGlobalId(id)).toEqual({ type: 'ModelVersion', key });
    }
  });

  test.each([
    ['a record id of the REST paths', 'kit-assessment-1'],
    ['a UUID', '550e8400-e29b-41d4-a716-446655440000'],
    ['standard base64 (+, /, padding)', Buffer.from('ModelVersion:x').toString('base64')],
    ['no type', Buffer.from(':x').toString('base64url')],
    ['no colon', Buffer.from('ModelVersion').toString('base64url')],
    ['a type that is not a GraphQL type name', Buffer.from('model version:x').toString('base64url')],
    ['invalid UTF-8', Buffer.from([0x49, 0x3a, 0xff, 0xfe]).toString('base64url')],
    ['stray bits in the last character (a second spelling of an id)', `${globalId('ModelVersion', 'x').slice(0, -1)}${String.fromCharCode(globalId('ModelVersion', 'x').at(-1)!.charCodeAt(0) + 1)}`],
    ['longer than any id of ours', globalId('ModelVersion', 'x'.repeat(1024))],
    ['empty', ''],
  ])('%s is not one of the graph ids', (_, id) => {
    expect(parseGlobalId(id)).toBeNull();
  });

  test("a questionnaire item's key: its version read back; the same path and version, the same key; another of either, another key", () => {
    const key = questionnaireItemKey('0.0.4', ['REcycle_Battery', 'P3_depollution']);
    expect(versionOfQuestionnaireItem(key)).toBe('0.0.4');
    expect(questionnaireItemKey('0.0.4', ['REcycle_Battery', 'P3_depollution'])).toBe(key);
    const others = [
      questionnaireItemKey('0.0.5', ['REcycle_Battery', 'P3_depollution']),
      questionnaireItemKey('0.0.4', ['REuse_Laptop', 'P3_depollution']),
      questionnaireItemKey('0.0.4', ['REcycle_Battery', 'P3_depollution', 1]),
      questionnaireItemKey('0.0.4', ['REcycle_Battery', 'P3_depollution', '1']),
      questionnaireItemKey('0.0.4', ['REcycle_Battery', 'P3_', 'depollution']),
    ];
    expect(new Set([key, ...others]).size).toBe(6);
    expect(versionOfQuestionnaireItem('short')).toBeNull();
  });

  test('the questionnaire types, and no other', () => {
    expect(['Indicator', 'IndicatorParameter', 'IndicatorQuestion', 'IndicatorAnswer'].every(isQuestionnaireType)).toBe(true);
    expect(['ModelVersion', 'Record', 'IndicatorSpecification', 'constructor'].some(isQuestionnaireType)).toBe(false);
  });
});
