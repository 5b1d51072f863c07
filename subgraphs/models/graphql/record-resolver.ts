import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../../kernel/graphql/request-context.js';
import type { JsonObject, RecordService } from '../domain/records/record-service.js';
import type { JsonValue } from '../domain/records/canonical-json.js';
import type { StoredRecord } from '../domain/records/record-store.js';
import { RecordCreationGql, RecordGql, RecordOwnerGql, RecordsReadinessGql } from './types.js';

const FILTER_DESCRIPTION =
  'The query filter of DECISIONS section 3 as JSON ({where, sort, limit, offset}), so that a malformed one gets the same 400 details as on REST';

@Resolver(() => RecordGql)
export class RecordResolver {
  constructor(private readonly service: RecordService) {}

  @Authorized('records.create')
  @Mutation(() => RecordCreationGql, { description: 'Core :create: validates the payload, then stores it once per idempotency key' })
  async createRecord(
    @Arg('model') model: string,
    @Arg('version') version: string,
    @Arg('payload', () => GraphQLJSONObject) payload: JsonObject,
    @Arg('idempotencyKey') idempotencyKey: string,
    @Ctx() context: RequestContext,
  ): Promise<RecordCreationGql> {
    return this.service.create(await context.identity(), { model, version }, payload, idempotencyKey);
  }

  @Authorized('records.create')
  @Mutation(() => RecordCreationGql, { description: 'The records backend (POST /records): any JSON payload (omitted = null) under the given id, no model validation' })
  async storeRecord(
    @Arg('id', () => ID) id: string,
    @Arg('model') model: string,
    @Arg('version') version: string,
    @Arg('payload', () => GraphQLJSON, { nullable: true }) payload: JsonValue | undefined,
    @Arg('idempotencyKey') idempotencyKey: string,
    @Ctx() context: RequestContext,
  ): Promise<RecordCreationGql> {
    return this.service.storeRecord(await context.identity(), { id, model, version, payload: payload ?? null }, idempotencyKey);
  }

  @Authorized('records.read')
  @Query(() => RecordGql, { description: 'RECORD_NOT_FOUND when it does not exist or the caller may not read it' })
  async record(@Arg('id', () => ID) id: string, @Ctx() context: RequestContext): Promise<RecordGql> {
    return this.service.get(await context.identity(), id);
  }

  @Authorized('records.query')
  @Query(() => [RecordGql], { description: 'Records the caller may read; with model and version, only that model version (which must exist)' })
  async records(
    @Arg('model', () => String, { nullable: true }) model: string | null,
    @Arg('version', () => String, { nullable: true }) version: string | null,
    @Arg('filter', () => GraphQLJSON, { nullable: true, description: FILTER_DESCRIPTION }) filter: unknown,
    @Ctx() context: RequestContext,
  ): Promise<RecordGql[]> {
    return this.service.query(await context.identity(), filter, model, version);
  }

  @Authorized('records.grant')
  @Mutation(() => Boolean, { description: "Lets one subject or one tenant read the caller's own record" })
  async grantRecordRead(
    @Arg('recordId', () => ID) recordId: string,
    @Arg('subject', () => String, { nullable: true }) subject: string | null,
    @Arg('tenant', () => String, { nullable: true }) tenant: string | null,
    @Ctx() context: RequestContext,
  ): Promise<boolean> {
    await this.service.grantRead(await context.identity(), recordId, { subject, tenant });
    return true;
  }

  @Authorized('records.grant')
  @Mutation(() => Boolean, { description: 'Withdraws a read grant (no-op when absent)' })
  async revokeRecordRead(
    @Arg('recordId', () => ID) recordId: string,
    @Arg('subject', () => String, { nullable: true }) subject: string | null,
    @Arg('tenant', () => String, { nullable: true }) tenant: string | null,
    @Ctx() context: RequestContext,
  ): Promise<boolean> {
    await this.service.revokeRead(await context.identity(), recordId, { subject, tenant });
    return true;
  }

  // Public: the records backend's readiness probe needs no credentials (DECISIONS section 2).
  @Query(() => RecordsReadinessGql, { description: 'Whether the records store answers' })
  recordsReadiness(): Promise<RecordsReadinessGql> {
    return this.service.readiness();
  }

  @FieldResolver(() => RecordOwnerGql, { nullable: true, description: 'Who created the record; null unless the caller is that owner' })
  async owner(@Root() record: StoredRecord, @Ctx() context: RequestContext): Promise<RecordOwnerGql | null> {
    return this.service.ownerShownTo(await context.identity(), record);
  }
}
