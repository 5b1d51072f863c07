import { DomainError } from '../../../kernel/errors.js';
import { parseComputeRequest } from '../../../subgraphs/indicators/domain/compute-request.js';

function problemsOf(body: unknown): { path: string; message: string }[] {
  try {
    parseComputeRequest(body);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('INVALID_REQUEST_BODY');
    return ((error as DomainError).details as { problems: { path: string; message: string }[] }).problems;
  }
  throw new Error('expected INVALID_REQUEST_BODY');
}

const paths = (body: unknown) => problemsOf(body).map((p) => p.path);

describe('compute request parsing', () => {
  test('defaults: model_version 0.0.4, parameter_assessments and question_answers []', () => {
    const request = parseComputeRequest({ payload: { indicator_specification_id: 'X', parameter_assessments: [{ parameter_id: 'P1' }] } });
    expect(request.modelVersion).toBe('0.0.4');
    expect(request.payload).toEqual({
      indicator_specification_id: 'X',
      parameter_assessments: [{ parameter_id: 'P1', question_answers: [] }],
    });
    expect(parseComputeRequest({ model_version: null, payload: { indicator_specification_id: 'X' } }).payload).toEqual({
      indicator_specification_id: 'X',
      parameter_assessments: [],
    });
  });

  test('the echo keeps what was received, extra keys and a missing selected_answer_id included', () => {
    const payload = {
      indicator_specification_id: 'X',
      note: 'kept',
      parameter_assessments: [{ parameter_id: 'P1', extra: 1, question_answers: [{ question_id: 'Q1' }] }],
    };
    const request = parseComputeRequest({ model_version: '0.0.5', payload });
    expect(request.modelVersion).toBe('0.0.5');
    expect(request.payload).toEqual(payload);
    expect(request.receivedPayload).toBe(payload);
  });

  test('a `__proto__` key in the payload stays a plain own key of the echo', () => {
    const payload = JSON.parse('{"indicator_specification_id":"X","__proto__":{"polluted":true}}');
    const request = parseComputeRequest({ payload });
    expect(Object.getPrototypeOf(request.payload)).toBe(Object.prototype);
    expect(Object.hasOwn(request.payload, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('a body that is not an object, or has no object payload', () => {
    expect(paths(null)).toEqual(['$']);
    expect(paths([])).toEqual(['$']);
    expect(paths({})).toEqual(['$.payload']);
    expect(paths({ payload: 'x' })).toEqual(['$.payload']);
  });

  test('every problem is listed with its path', () => {
    const problems = problemsOf({
      model_version: 4,
      payload: {
        indicator_specification_id: 7,
        parameter_assessments: [{ question_answers: [{ selected_answer_id: 3 }, 'nope', { question_id: 'Q', selected_answer_id: null }] }, { parameter_id: 'P2', question_answers: {} }, 5],
      },
    });
    expect(problems.map((p) => p.path)).toEqual([
      '$.model_version',
      '$.payload.indicator_specification_id',
      '$.payload.parameter_assessments[0].parameter_id',
      '$.payload.parameter_assessments[0].question_answers[0].question_id',
      '$.payload.parameter_assessments[0].question_answers[0].selected_answer_id',
      '$.payload.parameter_assessments[0].question_answers[1]',
      '$.payload.parameter_assessments[1].question_answers',
      '$.payload.parameter_assessments[2]',
    ]);
    for (const problem of problems) expect(problem.message).toEqual(expect.any(String));
  });

  test('parameter_assessments must be an array when present (null is not [])', () => {
    expect(paths({ payload: { indicator_specification_id: 'X', parameter_assessments: null } })).toEqual(['$.payload.parameter_assessments']);
  });

  test.each(['', '.', '..', '0.0.4/../x', 'a b', 'a\\b'])('model_version %j is not a usable version', (version) => {
    expect(paths({ model_version: version, payload: { indicator_specification_id: 'X' } })).toEqual(['$.model_version']);
  });
});
