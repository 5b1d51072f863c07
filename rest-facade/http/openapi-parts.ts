/** Small builders shared by the facades' OpenAPI 3.1 documents. */

export const errorEnvelopeSchema = {
  type: 'object',
  required: ['code', 'message', 'details'],
  properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} },
};

export function jsonContent(schema: unknown) {
  return { content: { 'application/json': { schema } } };
}

export function ref(name: string) {
  return { $ref: `#/components/schemas/${name}` };
}

/** Responses for the listed statuses, each with the facade's error schema. */
export function errorResponses(statuses: Record<number, string>, errorSchema: unknown = ref('Error')) {
  return Object.fromEntries(Object.entries(statuses).map(([status, description]) => [status, { description, ...jsonContent(errorSchema) }]));
}

export function pathParameter(name: string, description: string) {
  return { name, in: 'path', required: true, description, schema: { type: 'string' } };
}

/** A 200 answer with a JSON body. */
export function ok(description: string, schema: unknown) {
  return { 200: { description, ...jsonContent(schema) } };
}
