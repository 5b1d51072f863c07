import { type GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Authorized, Ctx, Directive, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../../kernel/graphql/request-context.js';
import { DomainError } from '../../../kernel/errors.js';
import type { ModelRegistry } from '../domain/registry/model-registry.js';
import type { JsonObject, RecordService, RecordQuery } from '../domain/records/record-service.js';
import type { JsonValue } from '../../../kernel/records/canonical-json.js';
import type { ModelVersion, StoredRecord } from '../domain/records/record-store.js';
import type { RecordPage } from '../domain/records/record-page.js';
import { typedRecordFilter } from '../domain/records/record-query.js';
import {
  CreateRecordInputGql,
  CreateRecordPayloadGql,
  RecordConnectionGql,
  RecordPageArgsGql,
  RecordReadGrantInputGql,
  RecordReadGrantPayloadGql,
  StoreRecordInputGql,
  RECORD_PAGE_SIZE,
  StoreRecordPayloadGql,
} from './record-types.js';
import { ModelVersionGql, RecordGql, RecordOwnerGql } from './types.js';
import { modelVersionGql } from './registry-resolver.js';

/** A page of records with what its fields need: `totalCount` counts only when asked for. */
interface RecordConnectionSource extends RecordConnectionGql {
  query: RecordQuery;
  service: RecordService;
}

@Resolver(() => RecordGql)
export class RecordResolver {
  constructor(
    private readonly service: RecordService,
    private readonly registry: Pick<ModelRegistry, 'find'>,
  ) {}

  @Authorized('records.create')
  @Mutation(() => CreateRecordPayloadGql, {
    description:
      'Validates a payload against its model version, then stores it once per idempotency key. VALIDATION_FAILED (with the report) when it does not pass; MODEL_NOT_FOUND; IDEMPOTENCY_CONFLICT',
  })
  async createRecord(
    @Arg('input', () => CreateRecordInputGql, { description: 'The model version, the payload and an idempotency key' }) input: CreateRecordInputGql,
    @Ctx() context: RequestContext,
  ): Promise<CreateRecordPayloadGql> {
    return this.service.create(await context.identity(), { model: input.model, version: input.version }, input.payload as JsonObject, input.idempotencyKey);
  }

  @Authorized('records.create')
  @Mutation(() => StoreRecordPayloadGql, { description: 'Stores any JSON payload under the given id, without validation, once per idempotency key. RECORD_CONFLICT, IDEMPOTENCY_CONFLICT' })
  async storeRecord(
    @Arg('input', () => StoreRecordInputGql, { description: 'The record and an idempotency key' }) input: StoreRecordInputGql,
    @Ctx() context: RequestContext,
  ): Promise<StoreRecordPayloadGql> {
    const record = { id: input.id, model: input.model, version: input.version, payload: (input.payload ?? null) as JsonValue };
    return this.service.storeRecord(await context.identity(), record, input.idempotencyKey);
  }

  @Authorized('records.read')
  @Query(() => RecordGql, { nullable: true, description: 'One record; null when it does not exist or you may not read it' })
  async record(@Arg('id', () => ID, { description: "The record's id" }) id: string, @Ctx() context: RequestContext): Promise<StoredRecord | null> {
    return this.service.find(await context.identity(), id, context.budget);
  }

  @Authorized('records.query')
  @Directive(RECORD_PAGE_SIZE)
  @Query(() => RecordConnectionGql, { description: 'The records you may read, a page at a time. BAD_REQUEST names the part of a filter that is wrong' })
  async records(@Args() args: RecordPageArgsGql, @Ctx() context: RequestContext, @Info() info: GraphQLResolveInfo): Promise<RecordConnectionSource> {
    return recordConnection(this.service, context, args, null, info);
  }

  @FieldResolver(() => ModelVersionGql, { description: 'The model version of its payload' })
  modelVersion(@Root() record: StoredRecord): ModelVersionGql {
    // A record outlives its model version's place in the registry: then only its key is known.
    return modelVersionGql(this.registry.find(record.model, record.version) ?? { model: record.model, version: record.version });
  }

  @FieldResolver(() => RecordOwnerGql, { nullable: true, description: 'Who stored it; shown to that owner only (null for a reader through a grant)' })
  async owner(@Root() record: StoredRecord, @Ctx() context: RequestContext): Promise<RecordOwnerGql | null> {
    return this.service.ownerShownTo(await context.identity(), record);
  }

  @Authorized('records.grant')
  @Mutation(() => RecordReadGrantPayloadGql, { description: 'Lets one subject or one tenant read one of your records. RECORD_NOT_FOUND when it is not yours' })
  async grantRecordRead(
    @Arg('input', () => RecordReadGrantInputGql, { description: 'Your record and who may read it' }) input: RecordReadGrantInputGql,
    @Ctx() context: RequestContext,
  ): Promise<RecordReadGrantPayloadGql> {
    await this.service.grantRead(await context.identity(), input.recordId, input);
    return grantPayload(input, true);
  }

  @Authorized('records.grant')
  @Mutation(() => RecordReadGrantPayloadGql, { description: 'Withdraws a read grant (nothing happens when there is none). RECORD_NOT_FOUND when the record is not yours' })
  async revokeRecordRead(
    @Arg('input', () => RecordReadGrantInputGql, { description: 'Your record and whose grant to withdraw' }) input: RecordReadGrantInputGql,
    @Ctx() context: RequestContext,
  ): Promise<RecordReadGrantPayloadGql> {
    await this.service.revokeRead(await context.identity(), input.recordId, input);
    return grantPayload(input, false);
  }
}

/** A connection's total, counted only when asked for. */
@Resolver(() => RecordConnectionGql)
export class RecordConnectionResolver {
  @FieldResolver(() => Int, { description: 'How many records match, over every page' })
  async totalCount(@Root() connection: RecordConnectionSource, @Ctx() context: RequestContext): Promise<number> {
    return connection.service.count(await context.identity(), connection.query, context.budget);
  }
}

/** The records of one model version. */
@Resolver(() => ModelVersionGql)
export class ModelVersionRecordsResolver {
  constructor(private readonly service: RecordService) {}

  @Authorized('records.query')
  @Directive(RECORD_PAGE_SIZE)
  @FieldResolver(() => RecordConnectionGql, { description: 'The records of this model version you may read, a page at a time' })
  async records(@Root() parent: ModelVersionGql, @Args() args: RecordPageArgsGql, @Ctx() context: RequestContext, @Info() info: GraphQLResolveInfo): Promise<RecordConnectionGql> {
    return recordConnection(this.service, context, args, { model: parent.model, version: parent.version }, info);
  }
}

/** A page of the records the caller may read, within one model version or all of them. */
async function recordConnection(service: RecordService, context: RequestContext, args: RecordPageArgsGql, within: ModelVersion | null, info: GraphQLResolveInfo): Promise<RecordConnectionSource> {
  const caller = await context.identity();
  // Only the cursors asked for (a count, where a page ends): no payload is read.
  const keysOnly = !selects(info, 'edges') && !selects(info, 'nodes');
  if (args.jsonFilter !== undefined && args.jsonFilter !== null) {
    const { query, page } = await service.pageByFilter(caller, alone(args), within, keysOnly, context.budget);
    return { ...connectionOf(page), query, service };
  }
  const query: RecordQuery = { ...typedRecordFilter(args.filter?.conditions ?? [], args.orderBy ?? []), within };
  const page = await service.page(caller, query, args, keysOnly, context.budget);
  return { ...connectionOf(page), query, service };
}

/** `jsonFilter`, which holds the whole query and its page: with any other argument it is BAD_REQUEST. */
function alone({ jsonFilter, ...others }: RecordPageArgsGql): unknown {
  const given = Object.entries(others)
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([name]) => name);
  if (given.length > 0)
    throw new DomainError('BAD_REQUEST', `jsonFilter holds the whole query and its page: leave out ${given.join(', ')}`, { at: 'jsonFilter', reason: 'given with other arguments' });
  return jsonFilter;
}

function connectionOf(page: RecordPage): RecordConnectionGql {
  return {
    edges: page.records.map((node, index) => ({ node, cursor: page.cursors[index]! })),
    nodes: page.records,
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      startCursor: page.cursors[0] ?? null,
      endCursor: page.cursors.at(-1) ?? null,
    },
  };
}

/** Whether the field being resolved selects `name` (a fragment counts as selecting everything). */
function selects(info: GraphQLResolveInfo, name: string): boolean {
  const fields = info.fieldNodes.flatMap((node) => node.selectionSet?.selections ?? []);
  return fields.some((selection) => selection.kind !== 'Field' || selection.name.value === name);
}

function grantPayload(input: RecordReadGrantInputGql, granted: boolean): RecordReadGrantPayloadGql {
  return { recordId: input.recordId, subject: input.subject ?? null, tenant: input.tenant ?? null, granted };
}
