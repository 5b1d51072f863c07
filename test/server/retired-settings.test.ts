import { readSystemConfig } from '../../server/config.js';
import { startupWarnings } from '../../server/startup-summary.js';

/**
 * A setting this version no longer reads (server/config.ts, RETIRED_SETTINGS) does not stop a
 * deployment that still sets it: the process starts, and says in one line what replaced it.
 */
const BASE = { AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true', REGISTRY_CATALOG_JSON: '[]' };

function warningsOf(env: Record<string, string>): Array<{ fields: object; message: string }> {
  const warned: Array<{ fields: object; message: string }> = [];
  startupWarnings(readSystemConfig({ ...BASE, ...env }), { warn: (fields: object, message: string) => void warned.push({ fields, message }) } as never);
  return warned;
}

test.each(['planned', 'apollo', 'anything'])('GATEWAY_EXECUTOR=%s: read no more, one line saying what replaced it', (value) => {
  expect(warningsOf({ GATEWAY_EXECUTOR: value })).toEqual([
    {
      fields: { variable: 'GATEWAY_EXECUTOR' },
      message: expect.stringMatching(/^GATEWAY_EXECUTOR is no longer read: every operation runs on the project's executor, planned by Hive's query planner/),
    },
  ]);
});

test("GATEWAY_PLANNER=apollo: read no more, one line saying Hive's planner plans; GATEWAY_PLANNER=hive: still read, nothing said", () => {
  expect(warningsOf({ GATEWAY_PLANNER: 'apollo' })).toEqual([
    {
      fields: { variable: 'GATEWAY_PLANNER' },
      message: "GATEWAY_PLANNER=apollo is no longer read: Hive's query planner plans every operation where its binary loads; Apollo's is only the fallback where it does not",
    },
  ]);
  expect(warningsOf({ GATEWAY_PLANNER: 'hive' })).toEqual([]);
});

test('GATEWAY_PLANNER set to anything else stops the start naming the variable and the one value it reads', () => {
  expect(() => readSystemConfig({ ...BASE, GATEWAY_PLANNER: 'rust' })).toThrow(/GATEWAY_PLANNER.*must be one of hive \(got "rust"\)/);
});

test('unset: nothing is said', () => {
  expect(warningsOf({})).toEqual([]);
});
