import { readFileSync } from 'node:fs';
import { compileOwlValidator } from '../../../../subgraphs/models/domain/validation/owl/owl-validator.js';
import { type ShaclValidator, compileShaclValidator } from '../../../../subgraphs/models/domain/validation/shacl/shacl-validator.js';
import type { PayloadValidator, ValidatorResult } from '../../../../subgraphs/models/domain/validation/validation-report.js';
import { describeWithSharedData, sharedPath } from '../../../support/shared-data.js';

const SPECIFICATION = 're-indicators-specification/0.0.4';

/**
 * The published 0.0.4 artifacts, read in place. The shared payload is the assessment part only; an
 * Assessment also requires id, timestamp, model_version and product_info, added here.
 */
describeWithSharedData(SPECIFICATION)('SHACL and OWL validators on the published 0.0.4 model', () => {
  let shacl: ShaclValidator;
  let owl: PayloadValidator;
  let assessment: Record<string, unknown>;

  beforeAll(() => {
    const artifact = (name: string) => readFileSync(sharedPath(SPECIFICATION, name), 'utf8');
    const schema: unknown = JSON.parse(artifact('schema.json'));
    shacl = compileShaclValidator({ shapes: artifact('shacl.ttl'), schema, rootClass: 'Assessment' });
    owl = compileOwlValidator({ ontology: artifact('model.ttl'), shapes: artifact('shacl.ttl'), schema, rootClass: 'Assessment' });
    assessment = {
      id: 'assessment-1',
      timestamp: '2025-01-15T10:30:00Z',
      model_version: '0.0.4',
      product_info: { product_category: 'Battery' },
      ...(JSON.parse(readFileSync(sharedPath('re-indicators-calculation/payload-recycle-battery-0.0.4.json'), 'utf8')) as object),
    };
  });

  const changed = (change: (payload: any) => void) => {
    const payload = structuredClone(assessment);
    change(payload);
    return payload;
  };

  test('a whole assessment passes both; the two SPARQL constraints are reported as Info, not checked', async () => {
    const shaclResult = await shacl.validate(assessment);
    expect(shaclResult.passed).toBe(true);
    expect(shaclResult.violations.map((v) => v.severity)).toEqual(['Info', 'Info']);
    expect(shaclResult.violations.map((v) => v.message).join('\n')).toMatch(/AssessmentCompletenessShape[\s\S]*ParameterAssessmentCompletenessShape/);
    expect(await owl.validate(assessment)).toEqual({ kind: 'Owl', passed: true, violations: [] });
  });

  test('counts the SPARQL constraints of the shapes graph for /admin/status', () => {
    expect(shacl.unsupportedConstraints).toBe(2);
  });

  test('missing id: minimum count at $.id', async () => {
    const payload = changed((p) => delete p.id);
    expect(errors(await shacl.validate(payload))).toEqual([['$.id', 'sh:MinCountConstraintComponent']]);
    expect(errors(await owl.validate(payload))).toEqual([['$.id', 'owl:minCardinality']]);
  });

  test('product_category "Car": not in sh:in at $.product_info.product_category', async () => {
    const payload = changed((p) => (p.product_info.product_category = 'Car'));
    expect(errors(await shacl.validate(payload))).toEqual([['$.product_info.product_category', 'sh:InConstraintComponent']]);
    // The ontology encodes the enum as an owl:unionOf of classes (LinkML), not owl:oneOf: nothing for OWL to check.
    expect((await owl.validate(payload)).passed).toBe(true);
  });

  test('an extra total_score: the closed Assessment shape rejects it at $.total_score', async () => {
    const result = await shacl.validate(changed((p) => (p.total_score = 87.5)));
    expect(errors(result)).toEqual([['$.total_score', 'sh:ClosedConstraintComponent']]);
    expect(result.violations[0].value).toBe(87.5);
  });

  test('a question answer without question_id: reported at its own path by both', async () => {
    const payload = changed((p) => delete p.parameter_assessments[2].question_answers[1].question_id);
    const path = '$.parameter_assessments[2].question_answers[1].question_id';
    expect(errors(await shacl.validate(payload))).toEqual([[path, 'sh:MinCountConstraintComponent']]);
    expect(errors(await owl.validate(payload))).toEqual([[path, 'owl:minCardinality']]);
  });

  test('timestamp that is not a date-time: the shapes type it xsd:dateTime', async () => {
    const payload = changed((p) => (p.timestamp = 'last Tuesday'));
    expect(errors(await shacl.validate(payload))).toEqual([['$.timestamp', 'sh:DatatypeConstraintComponent']]);
    expect(errors(await owl.validate(payload))).toEqual([['$.timestamp', 'owl:allValuesFrom']]);
  });

  test('the shared payload alone is not a whole Assessment', async () => {
    const partial = changed((p) => {
      for (const key of ['id', 'timestamp', 'model_version', 'product_info']) delete p[key];
    });
    expect(
      errors(await shacl.validate(partial))
        .map(([path]) => path)
        .sort(),
    ).toEqual(['$.id', '$.model_version', '$.product_info', '$.timestamp']);
  });

  test('a null answer adds no triple, so the completeness shape asks for selected_answer_id', async () => {
    const payload = changed((p) => (p.parameter_assessments[0].question_answers[0].selected_answer_id = null));
    expect(errors(await shacl.validate(payload))).toEqual([['$.parameter_assessments[0].question_answers[0].selected_answer_id', 'sh:MinCountConstraintComponent']]);
  });
});

function errors(result: ValidatorResult): Array<[string, string | undefined]> {
  return result.violations.filter((v) => v.severity === 'Error').map((v) => [v.path, v.constraint]);
}
