import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { projectPath } from '../../../kernel/project.js';
import { createIndicatorService } from '../../../subgraphs/indicators/create-indicator-service.js';
import { readSystemConfig } from '../../../server/config.js';
import { indicatorConfig } from '../../../server/indicators-config.js';
import { coreBaseUrlOf } from '../../../server/core-url.js';

const SAMPLE_DIR = ['examples', 'models', 're-indicators-specification', '0.0.4'];
const readSample = (file: string): unknown => JSON.parse(readFileSync(projectPath(...SAMPLE_DIR, file), 'utf8'));

/** The local profile offline: the default template (the bundled `file:` sample) and no core call. */
describe('the bundled sample scores offline', () => {
  const config = readSystemConfig({ AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true', REGISTRY_CATALOG_JSON: '[]', INDICATORS_SKIP_VALIDATION: 'true' });
  const service = createIndicatorService(indicatorConfig(config.indicators!, config.http, coreBaseUrlOf(config.coreBaseUrl, config.http)));

  test('its example assessment request', async () => {
    const request = readSample('example-assessment.request.json') as { payload: unknown };
    const response = await service.compute(request);
    expect(response.validation.status).toBe('validation_skipped');
    expect(response.artifacts.calculation_url).toBe(pathToFileURL(projectPath(...SAMPLE_DIR, 'calculation.json')).href);
    expect(response.payload).toEqual(request.payload);
    // P1 = 3 × 0.6 + 5 × 0.4 = 3.8; P2 = 4 × 1 = 4; P3 fixed 5; total = (3.8 × 0.4 + 4 × 0.35 + 5 × 0.25) / 5
    expect(response.result.parameter_scores.map((p) => p.computed_score)).toEqual([expect.closeTo(3.8, 12), 4, 5]);
    expect(response.result.total_score).toBeCloseTo(0.834, 12);
  });

  test('the bare example payload scores the same', async () => {
    const request = readSample('example-assessment.request.json') as { payload: unknown };
    const bare = await service.compute({ payload: readSample('example-assessment.json') });
    expect(bare.result).toEqual((await service.compute(request)).result);
  });

  test('its questionnaire carries the texts', async () => {
    const [battery] = await service.specifications('0.0.4');
    expect(battery).toMatchObject({ id: 'REcycle_Sample_Battery', indicatorType: 'REcycle', productCategory: 'Battery' });
    expect(battery.parameters[0]).toMatchObject({ id: 'P1_disassembly_information', name: 'Disassembly information', weight: 0.4 });
    expect(battery.parameters[0].questions[0]).toMatchObject({
      id: 'Q1.1',
      text: 'Can recyclers obtain a disassembly guide for the pack?',
      answers: expect.arrayContaining([{ id: 'guide_public', text: 'A disassembly guide is publicly available', score: 5 }]),
    });
    expect(battery.parameters[2]).toMatchObject({ id: 'P3_take_back', fixedScore: 5, questions: [] });
  });
});
