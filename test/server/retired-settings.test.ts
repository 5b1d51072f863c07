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

test('unset: nothing is said', () => {
  expect(warningsOf({})).toEqual([]);
});
