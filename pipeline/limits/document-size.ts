import { type DocumentNode, Kind, type ASTNode, Lexer, Source, TokenKind, visit } from 'graphql';
import { DomainError } from '../../kernel/errors.js';

/**
 * `GRAPHQL_MAX_TOKENS`, `GRAPHQL_MAX_FIELDS`, `GRAPHQL_MAX_LITERAL_DEPTH` and
 * `GRAPHQL_MAX_LITERAL_VALUES`: how large a document may be before it is validated.
 */
export interface DocumentSizeLimits {
  maxTokens: number;
  maxFields: number;
  maxLiteralDepth: number;
  maxLiteralValues: number;
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

/** The limits a parsed document is held to before it is validated: its fields, then its literals. */
export function checkParsed(document: DocumentNode, limits: DocumentSizeLimits): void {
  checkFields(document, limits.maxFields);
  checkLiterals(document, limits);
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

/*
 * Why literals are bounded: list and object values written in the document (an argument's, a
 * variable's default, a directive's) are walked by graphql-js's coercion and by federation's query
 * planning. @apollo/federation-internals' `collectVariablesInValue` walks every list twice (its
 * items, then its keys), so a 207-byte `validation(payload: { x: [[[…40 levels…1]]] })` ran for
 * days: 2^40 steps, each level doubling the time, the worker stuck and deaf to SIGTERM. The walk
 * of one value costs up to 2^depth, so the depth bound keeps one value cheap and the bound on the
 * values all literals hold together keeps their sum so (1,000 values at depth 10: about 20 ms).
 */

/**
 * LITERAL_TOO_DEEP when a list or object value nests deeper than `maxLiteralDepth` (`{ x: [1] }` is
 * 2), LITERAL_TOO_LARGE when the document's list and object values hold more than
 * `maxLiteralValues` items and fields all told. Variables are JSON, bounded by the body's depth limit.
 */
export function checkLiterals(document: DocumentNode, limits: Pick<DocumentSizeLimits, 'maxLiteralDepth' | 'maxLiteralValues'>): void {
  let depth = 0;
  let deepest = 0;
  let values = 0;
  const nests = (node: ASTNode) => node.kind === Kind.LIST || node.kind === Kind.OBJECT;
  visit(document, {
    enter(node) {
      if (node.kind === Kind.LIST) values += node.values.length;
      else if (node.kind === Kind.OBJECT) values += node.fields.length;
      if (nests(node)) deepest = Math.max(deepest, ++depth);
    },
    leave(node) {
      if (nests(node)) depth--;
    },
  });
  if (deepest > limits.maxLiteralDepth) {
    throw new DomainError('LITERAL_TOO_DEEP', `a literal nests lists and objects ${deepest} deep, over the limit of ${limits.maxLiteralDepth}`, { limit: limits.maxLiteralDepth, actual: deepest });
  }
  if (values > limits.maxLiteralValues) {
    throw new DomainError('LITERAL_TOO_LARGE', `the document's literals hold ${values} values, over the limit of ${limits.maxLiteralValues}`, { limit: limits.maxLiteralValues, actual: values });
  }
}
