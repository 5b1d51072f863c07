import { ApolloGateway, type GatewayConfig } from '@apollo/gateway';

/**
 * @apollo/gateway as this project builds it: with Apollo's usage telemetry off. Unless
 * APOLLO_TELEMETRY_DISABLED is `true` when a gateway is constructed, @apollo/gateway starts a
 * metrics exporter to Apollo's servers and, to describe the host, probes the cloud metadata
 * addresses of AWS, GCP, Azure and Alibaba (169.254.169.254, 100.100.100.200,
 * metadata.google.internal; gcp-metadata's `MetadataLookupWarning` when one answers oddly): calls
 * to addresses no configuration of this service names. Its only switch is that variable, so it is
 * set here, in every process that builds a gateway, whatever the environment says.
 */
export function apolloGateway(config: GatewayConfig): ApolloGateway {
  process.env.APOLLO_TELEMETRY_DISABLED = 'true';
  return new ApolloGateway(config);
}
