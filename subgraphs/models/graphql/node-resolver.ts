import { Arg, Authorized, Ctx, Directive, ID, Query, Resolver } from 'type-graphql';
import { DomainError } from '../../../kernel/errors.js';
import { listSize } from '../../../kernel/graphql/demand-control.js';
import { isQuestionnaireType, parseGlobalId, versionOfQuestionnaireItem } from '../../../kernel/graphql/global-id.js';
import type { RequestContext } from '../../../kernel/graphql/request-context.js';
import type { ModelRegistry } from '../domain/registry/model-registry.js';
import type { RecordService } from '../domain/records/record-service.js';
import { MODEL_VERSION, NodeGql, type NodeSource, modelVersionOfKey } from './node-types.js';
import { modelVersionGql } from './registry-resolver.js';

/** The most ids one `nodes` takes, as GitHub's graph allows: a page of a screen's objects, each a lookup of its own. */
export const NODES_MAX = 100;

/**
 * Relay's refetch by id, for every type of the graph that has one. An id is recognised by what it
 * decodes to: one of the graph's own (a model version's, a questionnaire item's) or else a record's,
 * which keeps the id its REST paths use. Each is looked up as its own root field would: a record
 * as `record(id:)` (records.read; null when missing or not the caller's to read), a model version
 * as `modelVersion` (models.artifact). A questionnaire item is handed on to the indicators
 * subgraph, which knows whether it exists; only one of a version the registry holds gets that far.
 */
@Resolver()
export class NodeResolver {
  constructor(
    private readonly registry: Pick<ModelRegistry, 'find' | 'list'>,
    private readonly records: RecordService,
  ) {}

  @Authorized()
  @Query(() => NodeGql, { nullable: true, description: 'The object with this `id`, of whatever type; null when there is none, or none you may read' })
  node(
    @Arg('id', () => ID, { description: 'An `id` the graph handed out (a record, a model version, an item of a questionnaire)' }) id: string,
    @Ctx() context: RequestContext,
  ): Promise<NodeSource | null> {
    return this.nodeOf(id, context);
  }

  @Authorized()
  @Directive(listSize({ assumedSize: NODES_MAX }))
  @Query(() => [NodeGql], {
    nullable: 'items',
    description: `The objects with these ids, in the same order, each null when there is none or none you may read. At most ${NODES_MAX} ids (BAD_REQUEST at \`ids\` past that)`,
  })
  nodes(@Arg('ids', () => [ID], { description: `Up to ${NODES_MAX} ids the graph handed out, of any types` }) ids: string[], @Ctx() context: RequestContext): Promise<Array<NodeSource | null>> {
    if (ids.length > NODES_MAX) throw new DomainError('BAD_REQUEST', `nodes takes at most ${NODES_MAX} ids, not ${ids.length}`, { at: 'ids', reason: `at most ${NODES_MAX} ids` });
    return Promise.all(ids.map((id) => this.nodeOf(id, context)));
  }

  private async nodeOf(id: string, context: RequestContext): Promise<NodeSource | null> {
    const own = parseGlobalId(id);
    if (own?.type === MODEL_VERSION) return this.modelVersion(own.key, context);
    if (own && isQuestionnaireType(own.type)) return this.questionnaireItem(own.type, own.key, id);
    const caller = await context.authorize('records.read');
    const record = await this.records.find(caller, id, context.budget);
    return record && { ...record, __typename: 'Record' };
  }

  private async modelVersion(key: string, context: RequestContext): Promise<NodeSource | null> {
    await context.authorize('models.artifact');
    const named = modelVersionOfKey(key);
    const found = named && this.registry.find(named.model, named.version);
    return found ? { ...modelVersionGql(found), __typename: MODEL_VERSION } : null;
  }

  /** A stub the gateway completes from the indicators subgraph, for a version the registry holds (no other can have a questionnaire). */
  private questionnaireItem(type: string, key: string, id: string): NodeSource | null {
    const version = versionOfQuestionnaireItem(key);
    const held = version !== null && this.registry.list().some((entry) => entry.version === version);
    return held ? { __typename: type, nodeRef: id } : null;
  }
}
