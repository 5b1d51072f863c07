import { DomainError } from '../../../kernel/errors.js';
import { artifactUrls, calculationUrlTemplate, isVersionSegment, shownUrls } from './artifact-urls.js';
import { withoutSecrets } from '../../../kernel/display-url.js';
import type { ArtifactUrls } from './artifact-urls.js';
import type { CalculationArtifact, IndicatorSpecification } from './calculation-artifact.js';
import { DEFAULT_MODEL_VERSION, MODEL_FAMILY, parseComputeRequest } from './compute-request.js';
import type { AssessmentPayload, ComputeRequest } from './compute-request.js';
import type { IndicatorConfig } from './indicator-config.js';
import { findIndicator, score } from './scoring.js';
import type { ScoringResult } from './scoring.js';
import { requirePassed, validatedByCore, validationSkipped } from './validation-section.js';
import type { ValidationSection } from './validation-section.js';

/**
 * The caller's credentials as the core's contract carries them (a bearer token, or forward_auth's
 * identity headers), passed through untouched: only ever forwarded to the core, never stored or
 * logged. Which of them may be forwarded is decided where the request enters.
 */
export type Credentials = Readonly<Record<string, string>>;

/** Port: the core's `:validate` operation. Resolves to the report as the core sent it. */
export interface CoreValidationPort {
  validationUrl(version: string): string;
  validate(version: string, payload: unknown, credentials: Credentials): Promise<unknown>;
}

/** Port: the parsed `calculation.json` of a version (cached by the adapter). */
export interface CalculationArtifactPort {
  load(version: string): Promise<CalculationArtifact>;
}

/** The parts of a stored record (models subgraph) that scoring reads. */
export interface RecordToScore {
  model: string;
  version: string;
  payload: unknown;
}

export interface ComputeResponse {
  model_family: string;
  model_version: string;
  artifact_base_url: string;
  artifacts: ArtifactUrls;
  payload: AssessmentPayload;
  validation: ValidationSection;
  result: ScoringResult;
}

/** doc 02's health response, exactly these fields. */
export interface HealthResponse {
  status: 'ok';
  model_family: string;
  validation_basis: 'shacl';
  default_testing_version: string;
  artifact_base_url_template: string;
  core_base_url: string;
  http_timeout_secs: number;
  bind_address: string;
  port: number;
  calculation_artifact_url_template: string;
}

/**
 * The indicator service's use cases, free of HTTP and GraphQL: resolvers and the REST facade call
 * these and turn a DomainError's code into their own status or error shape.
 */
export class IndicatorService {
  constructor(
    private readonly config: IndicatorConfig,
    private readonly core: CoreValidationPort,
    private readonly artifacts: CalculationArtifactPort,
  ) {}

  /** parse → delegated validation → artifact → version check → indicator lookup → score. */
  async compute(body: unknown, credentials: Credentials = {}): Promise<ComputeResponse> {
    const request = parseComputeRequest(body);
    const validation = await this.validate(request, credentials);
    requirePassed(validation);
    const result = await this.score(request);
    const urls = shownUrls(artifactUrls(this.config.artifactBaseUrlTemplate, request.modelVersion));
    return {
      model_family: MODEL_FAMILY,
      model_version: request.modelVersion,
      artifact_base_url: urls.base_url,
      artifacts: urls,
      payload: request.payload,
      validation,
      result,
    };
  }

  /**
   * The scores of a stored record, as `compute` would give them for its payload and version, or null
   * for a record of another model. No delegated validation: a core record was validated when it was
   * stored, and the payload's shape is still checked here (records backend payloads are any JSON).
   */
  async scoreRecord(record: RecordToScore): Promise<ScoringResult | null> {
    if (record.model !== MODEL_FAMILY) return null;
    return this.score(parseComputeRequest({ model_version: record.version, payload: record.payload }));
  }

  /** The questionnaire of a version's calculation artifact, in artifact order. */
  async specifications(version: string): Promise<IndicatorSpecification[]> {
    return [...(await this.calculationArtifact(version)).indicators.values()];
  }

  /** A version's calculation artifact, the same object while it is fresh: what its questionnaire is read from. */
  async calculationArtifact(version: string): Promise<CalculationArtifact> {
    if (!isVersionSegment(version)) {
      throw new DomainError('CALCULATION_ARTIFACT_NOT_FOUND', 'no calculation artifact is published for this model version');
    }
    return this.artifactOf(version);
  }

  health(): HealthResponse {
    const { config } = this;
    return {
      status: 'ok',
      model_family: MODEL_FAMILY,
      validation_basis: 'shacl',
      default_testing_version: DEFAULT_MODEL_VERSION,
      artifact_base_url_template: withoutSecrets(config.artifactBaseUrlTemplate),
      core_base_url: withoutSecrets(config.coreBaseUrl),
      http_timeout_secs: config.httpTimeoutSecs,
      bind_address: config.bindAddress,
      port: config.port,
      calculation_artifact_url_template: withoutSecrets(calculationUrlTemplate(config.artifactBaseUrlTemplate)),
    };
  }

  /** The core validates the payload exactly as the caller sent it (before defaults). */
  private async validate(request: ComputeRequest, credentials: Credentials): Promise<ValidationSection> {
    const version = request.modelVersion;
    const context = {
      source: this.config.coreServiceName,
      validationUrl: withoutSecrets(this.core.validationUrl(version)),
      modelVersion: version,
    };
    if (this.config.skipValidation) return validationSkipped(context);
    return validatedByCore(await this.core.validate(version, request.receivedPayload, credentials), context);
  }

  private async score(request: ComputeRequest): Promise<ScoringResult> {
    const artifact = await this.artifactOf(request.modelVersion);
    return score(findIndicator(artifact, request.payload.indicator_specification_id), request.payload);
  }

  /** A template pointing at the wrong release must not score with another version's weights. */
  private async artifactOf(version: string): Promise<CalculationArtifact> {
    const artifact = await this.artifacts.load(version);
    if (artifact.modelVersion !== version) {
      throw new DomainError('CALCULATION_ARTIFACT_VERSION_MISMATCH', 'the calculation artifact is for another model version', {
        requested_version: version,
        artifact_model_version: artifact.modelVersion,
      });
    }
    return artifact;
  }
}
