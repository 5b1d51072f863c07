import { readFileSync } from 'node:fs';
import { type DocumentNode, Kind, type OperationDefinitionNode, parse } from 'graphql';
import { projectPath } from '../../kernel/project.js';

export interface GraphExample {
  name: string;
  document: DocumentNode;
  /** The cost its comment states (`… = 28,500.`), if any. */
  statedCost?: number;
}

/**
 * The runnable GraphQL examples of docs/GRAPH.md: its ```graphql blocks that hold an operation (the
 * others are type listings), each named by its operation.
 */
export function graphMdExamples(): GraphExample[] {
  const text = readFileSync(projectPath('docs', 'GRAPH.md'), 'utf8');
  return [...text.matchAll(/```graphql\n([\s\S]*?)```/g)].flatMap(([, block]) => {
    const document = parse(block!);
    const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    if (!operation) return [];
    const stated = /= ([\d,]+)\.\n/.exec(block!)?.[1];
    return [{ name: operation.name?.value ?? 'anonymous', document, statedCost: stated === undefined ? undefined : Number(stated.replaceAll(',', '')) }];
  });
}
