import { CalculationArtifactSource } from './adapters/calculation-artifact-source.js';
import { CoreValidationClient } from './adapters/core-validation-client.js';
import { IndicatorService } from './domain/indicator-service.js';
import type { IndicatorConfig } from './domain/indicator-config.js';

/** Wires the domain to its HTTP/file adapters; one instance per process keeps one artifact cache. */
export function createIndicatorService(config: IndicatorConfig): IndicatorService {
  const timeoutMs = config.httpTimeoutSecs * 1000;
  return new IndicatorService(
    config,
    // Read per call, not copied: the default core URL is known only once the core facade listens.
    new CoreValidationClient({
      get coreBaseUrl() {
        return config.coreBaseUrl;
      },
      timeoutMs,
    }),
    new CalculationArtifactSource({
      template: config.artifactBaseUrlTemplate,
      timeoutMs,
      freshnessMs: config.artifactFreshnessSecs * 1000,
    }),
  );
}
