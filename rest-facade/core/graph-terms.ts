import { DomainError } from '../../kernel/errors.js';
import type { ArtifactKind, CoreValidateQuery, RegistryErrorFieldsFragment, Severity, ValidatorKind } from '../generated/operations.js';

/*
 * The graph's spellings turned into the contract's (doc 01): enum values in SCREAMING_SNAKE_CASE,
 * nulls for what the REST report omits, a null model version for the 404 the core answered.
 */

const ARTIFACT_KINDS = { schema: 'SCHEMA', shacl: 'SHACL', owl: 'OWL' } as const satisfies Record<string, ArtifactKind>;
const VALIDATOR_KINDS: Record<ValidatorKind, string> = { JSON_SCHEMA: 'JsonSchema', SHACL: 'Shacl', OWL: 'Owl' };
const SEVERITIES: Record<Severity, string> = { ERROR: 'Error', WARNING: 'Warning', INFO: 'Info' };

export function artifactKindOf(kind: keyof typeof ARTIFACT_KINDS): ArtifactKind {
  return ARTIFACT_KINDS[kind];
}

/** The core's 404 for a model version the registry does not hold, as its domain words it. */
export function modelNotFound({ model, version }: { model: string; version: string }): DomainError {
  return new DomainError('MODEL_NOT_FOUND', `model ${model} version ${version} is not in the registry`, { model, version });
}

type Report = NonNullable<CoreValidateQuery['modelVersion']>['validation'];
type Violation = Report['results'][number]['violations'][number];

/** Optional violation extras (`constraint`, `value`) come back from GraphQL as null; the REST report omits them. */
export function restReport(report: Report) {
  const violation = ({ constraint, value, severity, ...rest }: Violation) => ({
    ...rest,
    severity: SEVERITIES[severity],
    ...(constraint === null ? {} : { constraint }),
    ...(value === null ? {} : { value }),
  });
  return {
    passed: report.passed,
    results: report.results.map((r) => ({ kind: VALIDATOR_KINDS[r.kind], passed: r.passed, violations: r.violations.map(violation) })),
  };
}

export function registryError(error: RegistryErrorFieldsFragment) {
  return { ...error, artifact: error.artifact.toLowerCase() };
}
