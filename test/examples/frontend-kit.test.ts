import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectPath } from '../../kernel/project.js';
import { type TestSystem, startInProcessSystem } from '../support/system.js';
import { localProfileEnv } from '../subgraphs/indicators/local-profile.js';
import { KIT, SUPERGRAPH, typeCheck } from './kit.js';

/**
 * The frontend kit (examples/frontend/) as a frontend team uses it: graphql-codegen types its
 * operations from the committed supergraph, `tsc --noEmit` checks the code that uses them, and the
 * code runs against the graph. A breaking change of the graph is a compile error there before any
 * frontend sees it. (frontend-caches.test.ts runs its screens on Apollo Client and urql.)
 */
describe('the frontend kit type-checks against the committed graph', () => {
  test('codegen, then tsc --noEmit: no error', async () => {
    expect(await typeCheck(KIT, SUPERGRAPH)).toEqual({ code: 0, output: '' });
  }, 120_000);

  test('a breaking change of the graph (totalCount becomes a String) is a compile error in the kit', async () => {
    const copy = mkdtempSync(path.join(tmpdir(), 'frontend-kit-'));
    try {
      cpSync(KIT, copy, { recursive: true, filter: (source) => !source.includes(`${path.sep}generated`) });
      symlinkSync(projectPath('node_modules'), path.join(copy, 'node_modules'), 'dir');
      const supergraph = path.join(copy, 'changed.graphql');
      const text = readFileSync(SUPERGRAPH, 'utf8');
      expect(text).toMatch(/ totalCount: Int!/);
      writeFileSync(supergraph, text.replace(/ totalCount: Int!/, ' totalCount: String!'));
      const { code, output } = await typeCheck(copy, supergraph);
      expect(code).not.toBe(0);
      expect(output).toMatch(/src\/screens\.ts\(\d+,\d+\): error TS\d+/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('the frontend kit against the running graph (local profile model)', () => {
  let system: TestSystem;
  let screens: typeof import('../../examples/frontend/src/screens.js');
  let client: typeof import('../../examples/frontend/src/client.js');

  beforeAll(async () => {
    await typeCheck(KIT, SUPERGRAPH); // the generated documents the screens import
    screens = await import('../../examples/frontend/src/screens.js');
    client = await import('../../examples/frontend/src/client.js');
    system = await startInProcessSystem({ AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true', ...localProfileEnv() });
  }, 120_000);
  afterAll(() => system?.stop());

  const request = () => client.graphClient(`${system.url('gateway')}/graphql`);

  test('renders the questionnaire of a model version; an unknown version is null, not an error', async () => {
    const form = await screens.questionnaireForm(request(), 're-indicators-specification', '0.0.4');
    expect(form!.length).toBeGreaterThan(0);
    expect(form![0]!.sections[0]!.questions[0]!.choices.length).toBeGreaterThan(0);
    expect(await screens.questionnaireForm(request(), 're-indicators-specification', '9.9.9')).toBeNull();
  });

  test('submits an assessment: a wrong one gets the report, a right one is scored and saved once', async () => {
    const form = await screens.questionnaireForm(request(), 're-indicators-specification', '0.0.4');
    const indicator = form![0]!;
    const answers = Object.fromEntries(indicator.sections.map((section) => [section.parameterId, Object.fromEntries(section.questions.map((question) => [question.id, question.choices[0]!.value]))]));
    const right = { id: 'kit-assessment-1', assessedAt: '2026-11-24T10:00:00Z', indicatorSpecificationId: indicator.indicator, productCategory: 'Battery', answers };
    const saved = await screens.submitAssessment(request(), 're-indicators-specification', '0.0.4', right, 'kit-key-1');
    expect(saved.problems).toEqual([]);
    expect(saved.saved).toBe('kit-assessment-1');
    expect(typeof saved.score).toBe('number');
    expect((await screens.submitAssessment(request(), 're-indicators-specification', '0.0.4', right, 'kit-key-1')).saved).toBe('kit-assessment-1');

    const wrong = await screens.submitAssessment(request(), 're-indicators-specification', '0.0.4', { ...right, productCategory: 'Toaster' }, 'kit-key-2');
    expect(wrong.saved).toBeNull();
    expect(wrong.problems.join('\n')).toMatch(/product_category/);
  });

  test('lists my records page by page, newest first, with their model version and score', async () => {
    const rows = [];
    for await (const row of screens.myRecordRows(request(), 1)) rows.push(row);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toMatchObject({ id: 'kit-assessment-1', model: 're-indicators-specification 0.0.4', of: rows.length });
    expect(rows[0]!.stored.getTime()).toBeGreaterThan(0);
  });
});
