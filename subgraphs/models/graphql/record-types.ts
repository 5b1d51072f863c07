import 'reflect-metadata';
import { GraphQLDateTime, GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { ArgsType, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { PAGE_SIZE } from '../domain/records/record-page.js';
import { listSize } from '../../../kernel/graphql/demand-control.js';
import { RecordGql } from './types.js';

/*
 * Records' inputs, payloads and connection (docs/GRAPH.md). The filter is typed: a list of
 * conditions on a record's fields or payload paths, each with an operator and a typed value.
 */

export enum RecordFieldGql {
  ID = 'id',
  MODEL = 'model',
  VERSION = 'version',
  CREATED_AT = 'created_at',
  UPDATED_AT = 'updated_at',
  PAYLOAD = 'payload',
}
registerEnumType(RecordFieldGql, {
  name: 'RecordField',
  description: 'A field of a record to filter or order by',
  valuesConfig: {
    ID: { description: "The record's id" },
    MODEL: { description: 'Its model' },
    VERSION: { description: "Its model's version" },
    CREATED_AT: { description: 'When it was stored (compared as an instant)' },
    UPDATED_AT: { description: 'When it last changed (compared as an instant)' },
    PAYLOAD: { description: 'A value inside its payload, named by `path`' },
  },
});

export enum FilterOperatorGql {
  EQ = 'eq',
  NE = 'ne',
  IN = 'in',
  CONTAINS = 'contains',
  EXISTS = 'exists',
  GT = 'gt',
  GTE = 'gte',
  LT = 'lt',
  LTE = 'lte',
}
registerEnumType(FilterOperatorGql, {
  name: 'FilterOperator',
  description: 'How a condition compares a field with its value',
  valuesConfig: {
    EQ: { description: 'Equal as JSON (1 equals 1.0; a string never equals a number)' },
    NE: { description: 'Not EQ; also true when the field is missing' },
    IN: { description: 'Equal to one of `values` (scalars)' },
    CONTAINS: { description: 'A substring of a string field, or an element of an array field' },
    EXISTS: { description: 'The field is present (`value.boolean: true`; a present null counts) or absent (`false`)' },
    GT: { description: 'Greater than: numbers with numbers, strings with strings, instants with instants' },
    GTE: { description: 'Greater than or equal, like GT' },
    LT: { description: 'Less than, like GT' },
    LTE: { description: 'Less than or equal, like GT' },
  },
});

export enum OrderDirectionGql {
  ASC = 'asc',
  DESC = 'desc',
}
registerEnumType(OrderDirectionGql, {
  name: 'OrderDirection',
  description: 'Which way to order',
  valuesConfig: { ASC: { description: 'Smallest first; missing values last' }, DESC: { description: 'Largest first; missing values last' } },
});

@InputType('FilterValue', { description: 'A typed value to compare with: set exactly one of its fields' })
export class FilterValueGql {
  @Field(() => String, { nullable: true, description: 'A string' }) string?: string | null;
  @Field(() => Number, { nullable: true, description: 'A number' }) number?: number | null;
  @Field(() => Boolean, { nullable: true, description: 'A boolean (the value of EXISTS)' }) boolean?: boolean | null;
  @Field(() => GraphQLDateTime, { nullable: true, description: 'An instant, for CREATED_AT and UPDATED_AT (ISO 8601)' }) dateTime?: Date | string | null;
  @Field(() => Boolean, { nullable: true, description: 'true: JSON null' }) null?: boolean | null;
  @Field(() => GraphQLJSON, { nullable: true, description: 'An object or an array, compared as JSON (EQ, NE, CONTAINS)' }) json?: unknown;
}

@InputType('RecordCondition', { description: 'One condition a record must meet' })
export class RecordConditionGql {
  @Field(() => RecordFieldGql, { description: 'The field to test' }) field!: RecordFieldGql;
  @Field(() => String, { nullable: true, description: 'With PAYLOAD: a path into the payload, keys and indexes (`product_info.product_category`, `parameter_assessments[0].parameter_id`)' })
  path?: string | null;
  @Field(() => FilterOperatorGql, { description: 'How to compare' }) operator!: FilterOperatorGql;
  @Field(() => FilterValueGql, { nullable: true, description: 'The value, for every operator but IN' }) value?: FilterValueGql | null;
  @Field(() => [FilterValueGql], { nullable: true, description: 'The values, for IN: scalars, at least one' }) values?: FilterValueGql[] | null;
}

@InputType('RecordFilter', { description: 'Which records to list: those meeting every condition' })
export class RecordFilterGql {
  @Field(() => [RecordConditionGql], { nullable: true, description: 'All must hold; none: every record the caller may read' })
  conditions?: RecordConditionGql[] | null;
}

@InputType('RecordOrder', { description: 'One key of the order records are listed in' })
export class RecordOrderGql {
  @Field(() => RecordFieldGql, { description: 'The field to order by' }) field!: RecordFieldGql;
  @Field(() => String, { nullable: true, description: 'With PAYLOAD: the path into the payload (see RecordCondition.path)' }) path?: string | null;
  @Field(() => OrderDirectionGql, { defaultValue: OrderDirectionGql.ASC, description: 'Which way' }) direction!: OrderDirectionGql;
}

@ObjectType('PageInfo', { description: 'Where a page of a connection stands' })
export class PageInfoGql {
  @Field({ description: 'More items follow this page' }) hasNextPage!: boolean;
  @Field({ description: 'Items precede this page' }) hasPreviousPage!: boolean;
  @Field(() => String, { nullable: true, description: 'The cursor of the first item; null on an empty page' }) startCursor!: string | null;
  @Field(() => String, { nullable: true, description: 'The cursor of the last item: pass it as `after` for the next page; null on an empty page' })
  endCursor!: string | null;
}

@ObjectType('RecordEdge', { description: 'A record in a page, with its cursor' })
export class RecordEdgeGql {
  @Field({ description: 'Where this record stands: pass it as `after` or `before`' }) cursor!: string;
  @Field(() => RecordGql, { description: 'The record' }) node!: RecordGql;
}

@ObjectType('RecordConnection', { description: 'A page of records, in order, with what is needed to fetch the next one' })
export class RecordConnectionGql {
  @Field(() => [RecordEdgeGql], { description: 'The records with their cursors' }) edges!: RecordEdgeGql[];
  @Field(() => [RecordGql], { description: 'The records, when the cursors are not needed' }) nodes!: RecordGql[];
  @Field(() => PageInfoGql, { description: 'Whether more pages follow or precede' }) pageInfo!: PageInfoGql;
}

@InputType('CreateRecordInput', { description: 'A payload to validate and store as a record of a model version' })
export class CreateRecordInputGql {
  @Field({ description: 'The model' }) model!: string;
  @Field({ description: 'Its version' }) version!: string;
  @Field(() => GraphQLJSONObject, { description: "The payload; it must pass every validator of the model version. Its `id`, when a non-empty string, becomes the record's id" })
  payload!: Record<string, unknown>;
  @Field({ description: 'Makes retries safe: the same key with the same request answers the first record (replayed: true); with another request, IDEMPOTENCY_CONFLICT' })
  idempotencyKey!: string;
}

@InputType('StoreRecordInput', { description: "A record stored as given, without validation (the records backend's own write)" })
export class StoreRecordInputGql {
  @Field(() => ID, { description: "The record's id; RECORD_CONFLICT when your tenant already holds it under another key" }) id!: string;
  @Field({ description: 'The model it belongs to' }) model!: string;
  @Field({ description: 'Its version' }) version!: string;
  @Field(() => GraphQLJSON, { nullable: true, description: 'Any JSON value; omitted: null' }) payload?: unknown;
  @Field({ description: 'Makes retries safe, as for createRecord' }) idempotencyKey!: string;
}

@ObjectType('CreateRecordPayload', { description: 'The record createRecord stored (or had stored for the same key)' })
export class CreateRecordPayloadGql {
  @Field(() => RecordGql, { description: 'The record' }) record!: RecordGql;
  @Field({ description: 'True when the idempotency key was used before for the same request: `record` is the original' }) replayed!: boolean;
}

@ObjectType('StoreRecordPayload', { description: 'The record storeRecord stored (or had stored for the same key)' })
export class StoreRecordPayloadGql {
  @Field(() => RecordGql, { description: 'The record' }) record!: RecordGql;
  @Field({ description: 'True when the idempotency key was used before for the same request' }) replayed!: boolean;
}

@InputType('RecordReadGrantInput', { description: 'Who may read one of your records: name exactly one of `subject` and `tenant`' })
export class RecordReadGrantInputGql {
  @Field(() => ID, { description: 'Your record' }) recordId!: string;
  @Field(() => String, { nullable: true, description: 'A subject (user) to grant or revoke' }) subject?: string | null;
  @Field(() => String, { nullable: true, description: 'A tenant to grant or revoke' }) tenant?: string | null;
}

@ObjectType('RecordReadGrantPayload', { description: 'The grant as it now stands' })
export class RecordReadGrantPayloadGql {
  @Field(() => ID, { description: 'The record' }) recordId!: string;
  @Field(() => String, { nullable: true, description: 'The subject named' }) subject!: string | null;
  @Field(() => String, { nullable: true, description: 'The tenant named' }) tenant!: string | null;
  @Field({ description: 'Whether the grantee may now read the record' }) granted!: boolean;
}

/**
 * How long a records connection's page is, for demand control: its `first` or `last`, else the
 * resolver's own default (PAGE_SIZE.default, the same constant), for its `edges` and `nodes`.
 */
export const RECORD_PAGE_SIZE = listSize({ assumedSize: PAGE_SIZE.default, slicingArguments: ['first', 'last'], sizedFields: ['edges', 'nodes'], requireOneSlicingArgument: false });

/**
 * The arguments of a records connection (Query.records, ModelVersion.records), listed last first:
 * the schema shows every field's arguments in reverse (kernel/graphql/federated-schema.ts
 * `argumentsInDeclaredOrder`, which undoes type-graphql's reversal of parameter decorators).
 */
@ArgsType()
export class RecordPageArgsGql {
  @Field(() => GraphQLJSON, {
    nullable: true,
    description:
      'Which records, in the JSON form of the REST `:query` filter: `{where, sort, limit, offset}` (field names as `created_at` or `payload.a.b`, operators as `eq`), ' +
      `in place of filter, orderBy and the page arguments: \`limit\` records (default ${PAGE_SIZE.default}, at most ${PAGE_SIZE.max}) after the first \`offset\`. ` +
      'BAD_REQUEST details name the wrong part in that form ({at, reason, given})',
  })
  jsonFilter!: unknown;
  @Field(() => String, { nullable: true, description: 'A cursor: the records before it' }) before!: string | null;
  @Field(() => Int, { nullable: true, description: `The last n records before \`before\` (at most ${PAGE_SIZE.max})` }) last!: number | null;
  @Field(() => String, { nullable: true, description: 'A cursor: the records after it' }) after!: string | null;
  @Field(() => Int, { nullable: true, description: `The first n records after \`after\` (default ${PAGE_SIZE.default}, at most ${PAGE_SIZE.max})` }) first!: number | null;
  @Field(() => [RecordOrderGql], { nullable: true, description: 'The order, key by key; ties by createdAt, then id. Default: createdAt, then id, ascending' })
  orderBy!: RecordOrderGql[] | null;
  @Field(() => RecordFilterGql, { nullable: true, description: 'Which records; none: every record you may read' }) filter!: RecordFilterGql | null;
}
