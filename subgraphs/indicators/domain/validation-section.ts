import { DomainError } from '../../../kernel/errors.js';
import { isJsonObject, type JsonObject } from '../../../kernel/json.js';

/**
 * doc 02's `validation` object: this service's normalised view of the core's validation report
 * (DECISIONS section 3 shape: `{passed, results:[{kind, passed, violations:[…]}]}`), the report itself
 * kept unchanged as `raw_report`.
 */
export interface ValidationSection {
  basis: 'shacl';
  source: string;
  validation_url: string;
  status: 'validated_by_core' | 'validation_skipped';
  passed: boolean | null;
  finding_count: number | null;
  findings_present: boolean | null;
  raw_report: Record<string, unknown> | null;
  details: string[];
}

export interface ValidationContext {
  /** The core service's `service` name (see `IndicatorConfig.coreServiceName`). */
  source: string;
  validationUrl: string;
  modelVersion: string;
}

/** Enough to point at the problems; the full list is in `raw_report`. */
const MAX_FINDING_DETAILS = 20;

interface Finding {
  kind: string;
  severity: string;
  path: string;
  message: string;
}

/**
 * The section for the report the core answered. DECISIONS section 5: only `passed:false` blocks, so
 * a report without a boolean `passed` (or one that is not even an object) is kept with `passed`
 * null and computed on, the details saying so.
 */
export function validatedByCore(report: unknown, context: ValidationContext): ValidationSection {
  const object = isJsonObject(report) ? report : null;
  const passed = typeof object?.passed === 'boolean' ? object.passed : null;
  const results = Array.isArray(object?.results) ? object.results.filter(isJsonObject) : [];
  const findings = results.flatMap(findingsOf);
  return {
    ...sectionBase(context, 'validated_by_core'),
    passed,
    finding_count: findings.length,
    findings_present: findings.length > 0,
    raw_report: object,
    details: [`Validated by ${context.source} for model version ${context.modelVersion}: ${verdict(passed)}, ${plural(findings.length)}.`, ...results.map(resultLine), ...findingLines(findings)],
  };
}

export function validationSkipped(context: ValidationContext): ValidationSection {
  return {
    ...sectionBase(context, 'validation_skipped'),
    passed: null,
    finding_count: null,
    findings_present: null,
    raw_report: null,
    details: ['Validation skipped: the operator set INDICATORS_SKIP_VALIDATION=true; the core was not called.'],
  };
}

/** Only an explicit `passed:false` blocks; findings of a passing report (warnings) do not. */
export function requirePassed(section: ValidationSection): void {
  if (section.passed === false) {
    throw new DomainError('VALIDATION_FAILED', 'the payload did not pass the core validation', section);
  }
}

function sectionBase(context: ValidationContext, status: ValidationSection['status']) {
  return { basis: 'shacl' as const, source: context.source, validation_url: context.validationUrl, status };
}

/** finding_count counts findings (violations), not validators (a known bug of the reference). */
function findingsOf(result: JsonObject): Finding[] {
  const violations = Array.isArray(result.violations) ? result.violations : [];
  return violations.map((v: unknown) => {
    const violation = isJsonObject(v) ? v : {};
    return {
      kind: text(result.kind, 'validator'),
      severity: text(violation.severity, 'finding'),
      path: text(violation.path, '$'),
      message: text(violation.message, ''),
    };
  });
}

function resultLine(result: JsonObject): string {
  const count = Array.isArray(result.violations) ? result.violations.length : 0;
  const outcome = typeof result.passed === 'boolean' ? verdict(result.passed) : 'no verdict';
  return `${text(result.kind, 'validator')}: ${outcome}, ${plural(count)}.`;
}

function findingLines(findings: Finding[]): string[] {
  const lines = findings.slice(0, MAX_FINDING_DETAILS).map((f) => `${f.kind} ${f.severity} at ${f.path}: ${f.message}`);
  const more = findings.length - MAX_FINDING_DETAILS;
  return more > 0 ? [...lines, `${more} more finding(s) in raw_report.`] : lines;
}

function verdict(passed: boolean | null): string {
  return passed === null ? 'no verdict (the report has no boolean passed)' : passed ? 'passed' : 'failed';
}

function plural(count: number): string {
  return count === 1 ? '1 finding' : `${count} findings`;
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}
