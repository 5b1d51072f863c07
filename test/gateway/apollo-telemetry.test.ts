import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApolloGateway, type GatewayConfig, type GraphQLDataSource } from '@apollo/gateway';
import { apolloGateway } from '../../gateway/apollo-gateway.js';
import { projectPath } from '../../kernel/project.js';
import { takeRefusedConnections } from '../support/loopback-only.js';

/**
 * @apollo/gateway's usage telemetry probes the cloud metadata addresses as soon as a gateway is
 * built and reports to Apollo when it stops (the suite's former `MetadataLookupWarning`). The
 * suite's guard (support/loopback-only.ts) refuses such connections before any packet leaves:
 * shown here to catch exactly that with telemetry on, then the gateway as this project builds it
 * making none, through a load and a stop.
 */

const UNCALLED: GraphQLDataSource = { process: () => Promise.reject(new Error('no subgraph is called here')) };
const hostPort = (refused: string) => refused.split('\n')[0]!;

let config: GatewayConfig;
beforeAll(async () => {
  config = { supergraphSdl: await readFile(projectPath('gateway', 'supergraph.graphql'), 'utf8'), buildService: () => UNCALLED };
});

test('with telemetry on, @apollo/gateway reaches for the cloud metadata address and Apollo, and the guard refuses both', async () => {
  const setting = process.env.APOLLO_TELEMETRY_DISABLED;
  delete process.env.APOLLO_TELEMETRY_DISABLED;
  const refused: string[] = [];
  try {
    const gateway = new ApolloGateway(config);
    await gateway.load();
    for (let waited = 0; !refused.some((r) => r.startsWith('169.254.169.254:')) && waited < 5000; waited += 50) {
      refused.push(...takeRefusedConnections());
      await sleep(50);
    }
    await gateway.stop();
    refused.push(...takeRefusedConnections());
  } finally {
    if (setting === undefined) delete process.env.APOLLO_TELEMETRY_DISABLED;
    else process.env.APOLLO_TELEMETRY_DISABLED = setting;
  }
  const destinations = new Set(refused.map(hostPort));
  expect(destinations).toContain('169.254.169.254:80');
  expect([...destinations].some((d) => d.startsWith('usage-reporting.api.apollographql.com:'))).toBe(true);
});

test('the gateway as the project builds it connects nowhere: not when built, loaded or stopped', async () => {
  const gateway = apolloGateway(config);
  await gateway.load();
  await sleep(1000);
  await gateway.stop();
  expect(takeRefusedConnections().map(hostPort)).toEqual([]);
});
