import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { type DefinitionNode, type FragmentDefinitionNode, Kind, parse, print } from 'graphql';
import { FACADES, routesForInspection } from '../../rest-facade/facades.js';
import { projectPath } from '../../kernel/project.js';

/** A document an app has deployed: validated against every proposed schema whatever the traffic says. */
export interface DeployedDocument {
  /** `rest-facade:<facade>`, `frontend-kit`, `trusted-documents`. */
  app: string;
  name: string;
  body: string;
}

/** Every app deployment of this repository: the REST routes, the frontend kit, the trusted documents manifest. */
export function deployedDocuments(): DeployedDocument[] {
  return [...routeDocuments(), ...frontendKit(), ...trustedDocuments()];
}

/**
 * The names of the operations this deployment knows: its deployed documents' and those of `bodies`
 * (the trusted documents a gateway is started with). Each is always its own metric label (kernel/operation-labels.ts).
 */
export function knownOperationNames(bodies: Iterable<string> = []): string[] {
  const names = new Set<string>();
  for (const body of [...deployedDocuments().map((d) => d.body), ...bodies]) {
    for (const definition of parse(body, { noLocation: true }).definitions) if (definition.kind === Kind.OPERATION_DEFINITION && definition.name) names.add(definition.name.value);
  }
  return [...names];
}

function routeDocuments(): DeployedDocument[] {
  return FACADES.flatMap((facade) =>
    routesForInspection(facade).flatMap((route) => ('operation' in route ? [{ app: `rest-facade:${facade.name}`, name: `${route.method} ${route.path}`, body: print(route.operation) }] : [])),
  );
}

/** Each operation of examples/frontend/**\/*.graphql with every fragment of the kit (validation ignores none it uses). */
function frontendKit(): DeployedDocument[] {
  const root = projectPath('examples', 'frontend');
  if (!existsSync(root)) return [];
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.graphql') && !f.split(path.sep).includes('node_modules'));
  const definitions: DefinitionNode[] = files.sort().flatMap((file) => parse(readFileSync(path.join(root, file), 'utf8')).definitions);
  const fragments = definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  return definitions.flatMap((d) =>
    d.kind === Kind.OPERATION_DEFINITION ? [{ app: 'frontend-kit', name: d.name?.value ?? '(anonymous)', body: usedOnly(print({ kind: Kind.DOCUMENT, definitions: [d, ...fragments] })) }] : [],
  );
}

/** Drops the kit's fragments the operation does not spread, so that the document validates as sent. */
function usedOnly(body: string): string {
  const document = parse(body);
  const [operation, ...fragments] = document.definitions;
  const spread = (text: string) => new Set([...text.matchAll(/\.\.\.\s*([_A-Za-z][_0-9A-Za-z]*)/g)].map((m) => m[1]!).filter((n) => n !== 'on'));
  const used = new Set<string>();
  let pending = [...spread(print(operation!))];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (used.has(name)) continue;
    used.add(name);
    const fragment = fragments.find((f) => f.kind === Kind.FRAGMENT_DEFINITION && f.name.value === name);
    if (fragment) pending = [...pending, ...spread(print(fragment))];
  }
  return print({ kind: Kind.DOCUMENT, definitions: [operation!, ...fragments.filter((f) => f.kind === Kind.FRAGMENT_DEFINITION && used.has(f.name.value))] });
}

function trustedDocuments(): DeployedDocument[] {
  const file = projectPath('gateway', 'trusted-documents.json');
  if (!existsSync(file)) return [];
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as { operations: Array<{ name: string; body: string }> };
  return manifest.operations.map((o) => ({ app: 'trusted-documents', name: o.name, body: o.body }));
}
