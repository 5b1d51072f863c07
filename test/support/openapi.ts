import { compileErrors, validate } from '@readme/openapi-parser';

/** Validates an OpenAPI document with a real parser; resolves to the error text (empty when valid). */
export async function openApiProblems(document: unknown): Promise<string> {
  // The parser dereferences in place: hand it a copy.
  const result = await validate(structuredClone(document) as never);
  return result.valid ? '' : compileErrors(result);
}
