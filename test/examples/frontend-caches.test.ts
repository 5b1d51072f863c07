import { type TestSystem, NO_AUTH, call, startInProcessSystem } from '../support/system.js';
import { twoVersionsProfile } from '../subgraphs/indicators/local-profile.js';
import { KIT, SUPERGRAPH, typeCheck } from './kit.js';

/**
 * Issue 37: the kit's questionnaire screen on the clients frontend teams use, each with its default
 * normalized cache (objects keyed by `__typename` and `id`): Apollo Client 4's `InMemoryCache` with
 * no type policies, and urql's graphcache configured with nothing. Two versions of the sample model
 * that repeat the same keys with other texts and scores (and 0.0.4 repeats `Q1.1` across its
 * indicators): what each client shows, from its cache, must be what the server answered, for every
 * indicator of both versions; a question fetched again by `node(id:)` is the same object.
 */
const FAMILY = 're-indicators-specification';
const VERSIONS = ['0.0.4', '0.0.5'];

let sut: TestSystem;
let screens: typeof import('../../examples/frontend/src/screens.js');
let client: typeof import('../../examples/frontend/src/client.js');
let apollo: typeof import('../../examples/frontend/src/apollo.js');
let urql: typeof import('../../examples/frontend/src/urql.js');
let documents: typeof import('../../examples/frontend/generated/graphql.js');
let endpoint: string;
/** Each version's form as the server answered it, through the kit's plain fetch client (no cache). */
const served: Record<string, unknown> = {};

beforeAll(async () => {
  expect(await typeCheck(KIT, SUPERGRAPH)).toEqual({ code: 0, output: '' });
  [screens, client, apollo, urql, documents] = await Promise.all([
    import('../../examples/frontend/src/screens.js'),
    import('../../examples/frontend/src/client.js'),
    import('../../examples/frontend/src/apollo.js'),
    import('../../examples/frontend/src/urql.js'),
    import('../../examples/frontend/generated/graphql.js'),
  ]);
  sut = await startInProcessSystem({ ...NO_AUTH, ...twoVersionsProfile() });
  endpoint = `${sut.url('gateway')}/graphql`;
  for (const version of VERSIONS) served[version] = await screens.questionnaireForm(client.graphClient(endpoint), FAMILY, version);
}, 180_000);
afterAll(() => sut?.stop());

/** The kit's questionnaire before issue 37, on the field now deprecated. */
const OLD_QUESTIONNAIRE = `query Old($version: String!) {
  modelVersion(model: "re-indicators-specification", version: $version) { indicatorSpecifications { id parameters { id questions { id text } } } }
}`;
type OldQuestionnaire = { modelVersion: { indicatorSpecifications: Array<{ parameters: Array<{ questions: Array<{ text: string }> }> }> } };
const firstQuestionTexts = (data: OldQuestionnaire) => data.modelVersion.indicatorSpecifications.map((indicator) => indicator.parameters[0]!.questions[0]!.text);

/** What the server says the two indicators' first questions read (`Q1.1` both), and the cache showing one text for both. */
function expectMixedUp(shown: string[]): void {
  const [battery, laptop] = served['0.0.4'] as Array<{ sections: Array<{ questions: Array<{ label: string }> }> }>;
  expect([battery!.sections[0]!.questions[0]!.label, laptop!.sections[0]!.questions[0]!.label]).toEqual([
    'Can recyclers obtain a disassembly guide for the pack?',
    'Can the battery state of health be read out?',
  ]);
  expect(shown).toHaveLength(2);
  expect(new Set(shown).size).toBe(1);
}

test("the server's two questionnaires differ under the same keys: a cache that mixed them up would show it", () => {
  const [first, next] = VERSIONS.map((version) => served[version] as Awaited<ReturnType<typeof screens.questionnaireForm>>);
  expect(first!.map((i) => i.indicator)).toEqual(['REcycle_Sample_Battery', 'REuse_Sample_Laptop']);
  expect(next!.map((i) => i.indicator)).toEqual(first!.map((i) => i.indicator));
  expect(first![0]!.sections[0]!.questions[0]!.id).toBe(first![1]!.sections[0]!.questions[0]!.id);
  expect(first![0]!.sections[0]!.questions[0]!.label).not.toBe(first![1]!.sections[0]!.questions[0]!.label);
  expect(next![1]!.sections[0]!.questions[0]!.label).toBe(`${first![1]!.sections[0]!.questions[0]!.label} (0.0.5)`);
});

describe('Apollo Client 4, InMemoryCache with no type policies', () => {
  test('renders every indicator of both versions as the server answered, also from the cache alone', async () => {
    const apolloClient = apollo.apolloClient(endpoint);
    for (const version of VERSIONS) expect(await apollo.apolloQuestionnaireForm(apolloClient, FAMILY, version)).toEqual(served[version]);
    // Both versions now in one cache: read from it alone, each is still its own.
    for (const version of VERSIONS) {
      const { data } = await apolloClient.query({ query: documents.QuestionnaireDocument, variables: { model: FAMILY, version }, fetchPolicy: 'cache-only' });
      expect(screens.formOf(data!.modelVersion!)).toEqual(served[version]);
    }
  });

  test("a question fetched again by node(id:) is the questionnaire's own object, kept once in the cache", async () => {
    const apolloClient = apollo.apolloClient(endpoint);
    await apollo.apolloQuestionnaireForm(apolloClient, FAMILY, '0.0.5');
    const questions = () =>
      Object.entries(apolloClient.cache.extract() as Record<string, { __typename?: string; id?: string; text?: string }>).filter(([, entry]) => entry.__typename === 'IndicatorQuestion');
    const cached = questions();
    const form = served['0.0.5'] as Array<{ sections: Array<{ questions: unknown[] }> }>;
    expect(cached).toHaveLength(form.flatMap((indicator) => indicator.sections.flatMap((section) => section.questions)).length);
    const [key, question] = cached.find(([, entry]) => entry.text === 'Can the battery state of health be read out? (0.0.5)')!;
    expect(key).toBe(apolloClient.cache.identify({ __typename: 'IndicatorQuestion', id: question.id }));
    const refetched = await apollo.apolloRefetchQuestion(apolloClient, question.id!);
    expect(refetched).toMatchObject({ __typename: 'IndicatorQuestion', id: question.id, questionId: 'Q1.1', text: question.text });
    // Still one object per question, and the form shows what it showed.
    expect(questions().map(([k]) => k)).toEqual(cached.map(([k]) => k));
    expect(await apollo.apolloQuestionnaireForm(apolloClient, FAMILY, '0.0.5')).toEqual(served['0.0.5']);
  });

  test('the deprecated indicatorSpecifications, whose ids repeat, shows why it goes: the cache puts one object in place of another', async () => {
    const apolloClient = apollo.apolloClient(endpoint);
    const { gql } = await import('@apollo/client');
    const { data } = await apolloClient.query<OldQuestionnaire>({ query: gql(OLD_QUESTIONNAIRE), variables: { version: '0.0.4' } });
    expectMixedUp(firstQuestionTexts(data!));
  });
});

describe("urql's graphcache, configured with nothing", () => {
  test('renders every indicator of both versions as the server answered, also from the cache alone', async () => {
    const urqlClient = urql.urqlClient(endpoint);
    for (const version of VERSIONS) expect(await urql.urqlQuestionnaireForm(urqlClient, FAMILY, version)).toEqual(served[version]);
    for (const version of VERSIONS) {
      const { data } = await urqlClient.query(documents.QuestionnaireDocument, { model: FAMILY, version }, { requestPolicy: 'cache-only' }).toPromise();
      expect(screens.formOf(data!.modelVersion!)).toEqual(served[version]);
    }
  });

  test('the deprecated indicatorSpecifications, whose ids repeat: the cache puts one object in place of another', async () => {
    const urqlClient = urql.urqlClient(endpoint);
    const { data } = await urqlClient.query<OldQuestionnaire>(OLD_QUESTIONNAIRE, { version: '0.0.4' }).toPromise();
    expectMixedUp(firstQuestionTexts(data!));
  });

  test('a question fetched again by node(id:) answers what the questionnaire showed for it', async () => {
    const urqlClient = urql.urqlClient(endpoint);
    await urql.urqlQuestionnaireForm(urqlClient, FAMILY, '0.0.4');
    const raw = await call(sut.url('gateway'), 'POST', '/graphql', {
      body: { query: `{ modelVersion(model: "${FAMILY}", version: "0.0.4") { indicators { parameters { questions { id questionId text } } } } }` },
    });
    const question = raw.json.data.modelVersion.indicators[1].parameters[0].questions[0];
    expect(await urql.urqlRefetchQuestion(urqlClient, question.id)).toMatchObject({ id: question.id, questionId: 'Q1.1', text: question.text });
    expect(await urql.urqlQuestionnaireForm(urqlClient, FAMILY, '0.0.4')).toEqual(served['0.0.4']);
  });
});
