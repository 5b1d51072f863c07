/** The validation report of DECISIONS section 3: three results, always in this order. */
export type Severity = 'Error' | 'Warning' | 'Info';
export type ValidatorKind = 'JsonSchema' | 'Shacl' | 'Owl';
export const VALIDATOR_ORDER: readonly ValidatorKind[] = ['JsonSchema', 'Shacl', 'Owl'];

export interface Violation {
  /** JSONPath into the payload: `$`, `$.a`, `$.a[0].b`. */
  path: string;
  message: string;
  severity: Severity;
  /** Optional extras allowed by the contract, e.g. the constraint that fired or the offending value. */
  constraint?: string;
  value?: unknown;
}

export interface ValidatorResult {
  kind: ValidatorKind;
  passed: boolean;
  violations: Violation[];
}

export interface ValidationReport {
  passed: boolean;
  results: ValidatorResult[];
}

/** A validator compiled once at registry load and called for every payload. */
export interface PayloadValidator {
  readonly kind: ValidatorKind;
  validate(payload: unknown): Promise<ValidatorResult>;
}

export function resultOf(kind: ValidatorKind, violations: Violation[]): ValidatorResult {
  return { kind, passed: !violations.some((v) => v.severity === 'Error'), violations };
}

export function reportOf(results: ValidatorResult[]): ValidationReport {
  return { passed: results.every((r) => r.passed), results };
}
