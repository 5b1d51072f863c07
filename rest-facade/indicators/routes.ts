import type { FacadeResponse, Route } from '../route-table.js';

const json = (body: unknown): FacadeResponse => ({ status: 200, body });

/** The route table of the indicator service (doc 02): each path is one GraphQL operation. */
export function indicatorRoutes(openapi: () => unknown): Route[] {
  return [
    {
      method: 'GET',
      path: '/health',
      operation: `query IndicatorHealth { indicatorHealth {
        status modelFamily validationBasis defaultTestingVersion artifactBaseUrlTemplate coreBaseUrl
        httpTimeoutSecs bindAddress port calculationArtifactUrlTemplate
      } }`,
      respond: ({ indicatorHealth: h }) =>
        json({
          status: h.status,
          model_family: h.modelFamily,
          validation_basis: h.validationBasis,
          default_testing_version: h.defaultTestingVersion,
          artifact_base_url_template: h.artifactBaseUrlTemplate,
          core_base_url: h.coreBaseUrl,
          http_timeout_secs: h.httpTimeoutSecs,
          bind_address: h.bindAddress,
          port: h.port,
          calculation_artifact_url_template: h.calculationArtifactUrlTemplate,
        }),
    },
    { method: 'GET', path: '/openapi.json', local: () => json(openapi()) },
    {
      // The whole body is the request: the domain reports every problem of its shape at once.
      method: 'POST',
      path: '/compute',
      body: 'json',
      operation: `mutation IndicatorCompute($request: JSON) { computeIndicators(request: $request) {
        modelFamily modelVersion artifactBaseUrl
        artifacts { modelVersion baseUrl calculationUrl shaclUrl schemaUrl owlUrl }
        payload
        validation { basis source validationUrl status passed findingCount findingsPresent rawReport details }
        result { status totalScore notes parameterScores { parameterId computedScore questionScores { questionId selectedAnswerId answerScore } } }
      } }`,
      variables: (request) => ({ request: request.body }),
      respond: ({ computeIndicators: c }) => json(computeResponse(c)),
    },
  ];
}

/** doc 02's compute response, field for field and in its order, from the graph's camelCase. */
function computeResponse(c: any) {
  const { artifacts: a, validation: v, result: r } = c;
  return {
    model_family: c.modelFamily,
    model_version: c.modelVersion,
    artifact_base_url: c.artifactBaseUrl,
    artifacts: { model_version: a.modelVersion, base_url: a.baseUrl, calculation_url: a.calculationUrl, shacl_url: a.shaclUrl, schema_url: a.schemaUrl, owl_url: a.owlUrl },
    payload: c.payload,
    validation: {
      basis: v.basis,
      source: v.source,
      validation_url: v.validationUrl,
      status: v.status,
      passed: v.passed,
      finding_count: v.findingCount,
      findings_present: v.findingsPresent,
      raw_report: v.rawReport,
      details: v.details,
    },
    result: {
      status: r.status,
      total_score: r.totalScore,
      parameter_scores: r.parameterScores.map((p: any) => ({
        parameter_id: p.parameterId,
        computed_score: p.computedScore,
        question_scores: p.questionScores.map((q: any) => ({ question_id: q.questionId, selected_answer_id: q.selectedAnswerId, answer_score: q.answerScore })),
      })),
      notes: r.notes,
    },
  };
}
