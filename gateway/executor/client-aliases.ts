import { type DocumentNode, GraphQLError, Kind, parse, visit } from 'graphql';

/**
 * The client's aliases, kept out of the subgraphs' way. A planner adds to a fetch the fields an
 * entity fetch needs (`@key`, `@requires`, `__typename`) under their own names, beside the client's
 * selection; a client alias that is one of those names meets them there. `{ records { nodes {
 * model: version version: model indicatorResult { … } } } }` sent `indicators` the record's version
 * as its model (a null result), and `payload: modelVersion { model }` an object as its payload
 * (INVALID_REQUEST_BODY): both planners, which differ only in where they lose track (Apollo's
 * everywhere, Hive's under a list).
 *
 * So the document a planner plans, and the fetches ask for, has each such alias renamed out of the
 * way, `PREFIX` before it; the client's names come back when the answer is shaped
 * (result-shaping.ts, `clientName`) and in the paths of the fetches' errors (`clientErrors`). Renamed
 * are the aliases a planner could meet: a field name of the supergraph (any type's, hidden ones
 * included), and any name that begins with `_` (`__typename`, Hive's `_internal_qp_alias_N`, and
 * the prefix itself, so that no renamed alias can meet a client's). Apollo's own aliases
 * (`name__alias_N`) are checked against the names in use. Any other alias (`t: title`) stays as the
 * client wrote it, and its document is planned as it came.
 */
export class ClientAliases {
  /** Begins with `_`, and no field of the supergraph begins with it. */
  private readonly prefix: string;
  private readonly fieldNames: ReadonlySet<string>;
  private readonly renamed = new WeakMap<DocumentNode, DocumentNode>();

  constructor(supergraphSdl: string) {
    const names = new Set<string>();
    visit(parse(supergraphSdl), { FieldDefinition: (field) => void names.add(field.name.value) });
    this.fieldNames = names;
    let prefix = '_alias_';
    while ([...names].some((name) => name.startsWith(prefix))) prefix = `_${prefix}`;
    this.prefix = prefix;
  }

  /** The document to plan and fetch: `document` itself when no alias of it is renamed. */
  planned(document: DocumentNode): DocumentNode {
    let planned = this.renamed.get(document);
    if (!planned) {
      planned = this.rename(document);
      this.renamed.set(document, planned);
    }
    return planned;
  }

  /** The client's response name of a response name in a planned document. */
  clientName(name: string): string {
    return name.startsWith(this.prefix) ? name.slice(this.prefix.length) : name;
  }

  /** Errors with their paths in the client's names. */
  clientErrors(errors: GraphQLError[]): GraphQLError[] {
    return errors.map((error) => {
      if (!error.path?.some((segment) => typeof segment === 'string' && segment.startsWith(this.prefix))) return error;
      const path = error.path.map((segment) => (typeof segment === 'string' ? this.clientName(segment) : segment));
      return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, path, originalError: error.originalError, extensions: error.extensions });
    });
  }

  private rename(document: DocumentNode): DocumentNode {
    let changed = false;
    const renamed = visit(document, {
      Field: (field) => {
        const alias = field.alias?.value;
        if (alias === undefined || alias === field.name.value || !(alias.startsWith('_') || this.fieldNames.has(alias))) return undefined;
        changed = true;
        return { ...field, alias: { kind: Kind.NAME, value: `${this.prefix}${alias}` } };
      },
    });
    return changed ? renamed : document;
  }
}
