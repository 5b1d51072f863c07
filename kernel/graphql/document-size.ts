import { type DocumentNode, Lexer, Source, TokenKind, visit } from 'graphql';
import { DomainError } from '../errors.js';

/** `GRAPHQL_MAX_TOKENS` and `GRAPHQL_MAX_FIELDS`: how large a document may be before it is validated. */
export interface DocumentSizeLimits {
  maxTokens: number;
  maxFields: number;
}

/*
 * Why before validation: graphql-js compares every two fields of a selection set that share a
 * response name, and every two fragments spread into it (OverlappingFieldsCanBeMerged), so the
 * time validation takes grows with the square of the document. `{ models { model version label } }`
 * repeated 5,000 times (155 KB, under the body limit) took 54 s, with the process stalled; the
 * depth, alias and cost limits only run on a validated document. Bounding tokens (checked while
 * lexing, so a huge document costs only its first tokens) and fields bounds that square.
 */

/** QUERY_TOO_LARGE once the text holds more than `maxTokens` tokens; lexing stops there. */
export function checkTokens(source: string, maxTokens: number): void {
  const lexer = new Lexer(new Source(source));
  let count = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) {
      if (++count > maxTokens) break;
    }
  } catch {
    return; // a syntax error: the parser reports it in its own words
  }
  if (count > maxTokens) {
    throw new DomainError('QUERY_TOO_LARGE', `document token count exceeds the limit of ${maxTokens}`, { limit: maxTokens, measure: 'tokens' });
  }
}

/** QUERY_TOO_LARGE when the parsed document selects more than `maxFields` fields (each fragment's once). */
export function checkFields(document: DocumentNode, maxFields: number): void {
  let count = 0;
  visit(document, {
    Field() {
      count++;
    },
  });
  if (count > maxFields) {
    throw new DomainError('QUERY_TOO_LARGE', `document field count ${count} exceeds the limit of ${maxFields}`, { limit: maxFields, actual: count, measure: 'fields' });
  }
}
