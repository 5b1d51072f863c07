import { readFileSync } from 'node:fs';
import { projectPath } from '../../../../kernel/project.js';
import { compileOwlValidator } from '../../../../subgraphs/models/domain/validation/owl/owl-validator.js';
import { compileShaclValidator } from '../../../../subgraphs/models/domain/validation/shacl/shacl-validator.js';
import type { PayloadValidator, ValidatorResult } from '../../../../subgraphs/models/domain/validation/validation-report.js';

const artifact = (name: string) => readFileSync(projectPath('examples/models/re-indicators-specification/0.0.4', name), 'utf8');

describe('the example model shipped for the offline demo', () => {
  const schema: unknown = JSON.parse(artifact('schema.json'));
  const example = JSON.parse(artifact('example-assessment.json')) as Record<string, any>;
  const shacl = compileShaclValidator({ shapes: artifact('shacl.ttl'), schema, rootClass: 'Assessment' });
  const owlWithShapes = compileOwlValidator({ ontology: artifact('owl.ttl'), shapes: artifact('shacl.ttl'), schema, rootClass: 'Assessment' });
  const owlAlone = compileOwlValidator({ ontology: artifact('owl.ttl'), rootClass: 'Assessment' });
  const validators: Array<[string, PayloadValidator]> = [
    ['SHACL', shacl],
    ['OWL lifted by the shapes', owlWithShapes],
    ['OWL lifted by the ontology', owlAlone],
  ];

  const changed = (change: (payload: any) => void) => {
    const payload = structuredClone(example);
    change(payload);
    return payload;
  };

  test.each(validators)('%s: the example assessment passes with nothing to report', async (_name, validator) => {
    expect((await validator.validate(example)).violations).toEqual([]);
  });

  test('the shapes have no SPARQL constraints', () => {
    expect(shacl.unsupportedConstraints).toBe(0);
  });

  test('SHACL failures map to the JSONPath of the offending key', async () => {
    const payload = changed((p) => {
      delete p.id;
      p.notes = 'not in the model';
      p.product_info.product_category = 'Car';
      p.parameter_assessments[1].question_answers[0].selected_answer_id = 4;
      p.parameter_assessments[0].question_answers.push({ selected_answer_id: 'guide_public' });
    });
    expect(paths(await shacl.validate(payload))).toEqual([
      ['$.id', 'sh:MinCountConstraintComponent'],
      ['$.notes', 'sh:ClosedConstraintComponent'],
      ['$.parameter_assessments[0].question_answers[2].question_id', 'sh:MinCountConstraintComponent'],
      ['$.parameter_assessments[1].question_answers[0].selected_answer_id', 'sh:DatatypeConstraintComponent'],
      ['$.product_info.product_category', 'sh:InConstraintComponent'],
    ]);
  });

  test.each(validators.slice(1))('%s: failures map to the same paths', async (_name, validator) => {
    const payload = changed((p) => {
      delete p.id;
      p.timestamp = ['2025-01-15T10:30:00Z', '2025-01-16T08:00:00Z'];
      p.product_info.product_category = 'Car';
      p.parameter_assessments[1].question_answers[0].selected_answer_id = 4;
    });
    expect(paths(await validator.validate(payload))).toEqual([
      ['$.id', 'owl:cardinality'],
      ['$.parameter_assessments[1].question_answers[0].selected_answer_id', 'rdfs:range'],
      ['$.product_info.product_category', 'owl:oneOf'],
      ['$.timestamp', 'owl:FunctionalProperty'],
      ['$.timestamp', 'owl:cardinality'],
    ]);
  });

  test('the example assessment answers questions that calculation.json scores', () => {
    const calculation = JSON.parse(artifact('calculation.json')) as {
      indicator_configurations: Record<string, { parameters: Array<{ parameter_ref: string; questions: Array<{ question_id: string; answers: Array<{ answer_id: string }> }> }> }>;
    };
    const indicator = calculation.indicator_configurations[example.indicator_specification_id];
    expect(indicator).toBeDefined();
    for (const assessed of example.parameter_assessments) {
      const parameter = indicator.parameters.find((p) => p.parameter_ref === assessed.parameter_id)!;
      expect(parameter).toBeDefined();
      for (const answer of assessed.question_answers) {
        const question = parameter.questions.find((q) => q.question_id === answer.question_id)!;
        expect(question.answers.map((a) => a.answer_id)).toContain(answer.selected_answer_id);
      }
    }
  });

  test('the request file wraps the same example', () => {
    expect(JSON.parse(artifact('example-assessment.request.json'))).toEqual({ payload: example });
  });
});

function paths(result: ValidatorResult): Array<[string, string | undefined]> {
  return result.violations.map((v): [string, string | undefined] => [v.path, v.constraint]).sort((a, b) => (`${a[0]} ${a[1]}` < `${b[0]} ${b[1]}` ? -1 : 1));
}
