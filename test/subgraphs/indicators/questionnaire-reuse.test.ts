import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ArtifactHost } from '../../support/artifact-host.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../../support/system.js';
import { SAMPLE_DIR, localProfileEnv } from './local-profile.js';

const QUESTIONNAIRE = `query Questionnaire($version: String!) {
  modelVersion(model: "re-indicators-specification", version: $version) {
    version
    indicatorSpecifications { id parameters { id questions { id text answers { id score } } } }
  }
}`;

const CALCULATION = readFileSync(`${SAMPLE_DIR}/0.0.4/calculation.json`, 'utf8');
const FIRST_QUESTION = 'Can recyclers obtain a disassembly guide for the pack?';
const FRESHNESS_SECS = 1;

/**
 * The questionnaire a frontend renders is registry data: the gateway reuses the indicators' answer
 * for it (gateway/executor/answer-cache.ts) while the calculation artifact it was read from is
 * fresh (INDICATORS_ARTIFACT_FRESHNESS_SECS, the setting this file is about). What a frontend must
 * see: the same answer every time, a republished artifact once its freshness has run out (at most
 * twice that), and an artifact published after a failure at once.
 */
describe('the questionnaire reused between requests', () => {
  let host: ArtifactHost;
  let sut: TestSystem;
  const questionnaire = async (version: string) => (await call(sut.url('gateway'), 'POST', '/graphql', { body: { query: QUESTIONNAIRE, variables: { version } } })).json;
  const firstQuestion = (answer: any) => answer.data.modelVersion.indicatorSpecifications[0].parameters[0].questions[0].text;

  beforeAll(async () => {
    host = await new ArtifactHost().start();
    host.serve('/0.0.4/calculation.json', { body: CALCULATION, etag: '"one"' });
    sut = await startInProcessSystem({
      ...NO_AUTH,
      ...localProfileEnv(),
      ARTIFACT_BASE_URL_TEMPLATE: `${host.url}/{version}/`,
      INDICATORS_ARTIFACT_FRESHNESS_SECS: String(FRESHNESS_SECS),
    });
  });
  afterAll(async () => {
    await sut?.stop();
    await host?.stop();
  });

  test('is the same answer on every request, and a republished artifact shows once its freshness has run out', async () => {
    const first = await questionnaire('0.0.4');
    expect(first.errors).toBeUndefined();
    expect(firstQuestion(first)).toBe(FIRST_QUESTION);
    for (let i = 0; i < 4; i++) expect(await questionnaire('0.0.4')).toEqual(first);

    host.serve('/0.0.4/calculation.json', { body: CALCULATION.replace(FIRST_QUESTION, 'Is a disassembly guide published?'), etag: '"two"' });
    await sleep(2 * FRESHNESS_SECS * 1000 + 500);
    for (let i = 0; i < 4; i++) expect(firstQuestion(await questionnaire('0.0.4'))).toBe('Is a disassembly guide published?');
  });

  test('a version whose artifact was missing has its questionnaire as soon as it is published', async () => {
    host.serve('/0.0.4/calculation.json', { status: 404, body: 'not found' });
    await sleep(2 * FRESHNESS_SECS * 1000 + 500);
    const missing = await questionnaire('0.0.4');
    expect(missing.errors[0].extensions.code).toBe('CALCULATION_ARTIFACT_NOT_FOUND');
    host.serve('/0.0.4/calculation.json', { body: CALCULATION, etag: '"three"' });
    for (let i = 0; i < 4; i++) expect(firstQuestion(await questionnaire('0.0.4'))).toBe(FIRST_QUESTION);
  });
});
