import 'reflect-metadata';
import { GraphQLDateTime, GraphQLJSON } from 'graphql-scalars';
import { Directive, Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { healthType } from '../../../kernel/graphql/health-root.js';
import { FREE_FORM_JSON_WEIGHT, cost } from '../../../kernel/graphql/demand-control.js';
import { NodeGql } from './node-types.js';

/*
 * The models subgraph's types as frontend developers read them (docs/GRAPH.md). Enum names are the
 * graph's (SCREAMING_SNAKE_CASE); their values are the domain's own strings, so resolvers hand domain
 * objects over unchanged and the REST facades map the names back to the contract's spellings.
 */

export enum ArtifactKindGql {
  SCHEMA = 'schema',
  SHACL = 'shacl',
  OWL = 'owl',
}
registerEnumType(ArtifactKindGql, {
  name: 'ArtifactKind',
  description: 'The published artifacts of a model version',
  valuesConfig: {
    SCHEMA: { description: 'The JSON Schema payloads must satisfy' },
    SHACL: { description: 'The SHACL shapes (Turtle) the payload, read as RDF, must satisfy' },
    OWL: { description: 'The OWL ontology (Turtle) the payload, read as RDF, must be consistent with' },
  },
});

export enum ValidatorKindGql {
  JSON_SCHEMA = 'JsonSchema',
  SHACL = 'Shacl',
  OWL = 'Owl',
}
registerEnumType(ValidatorKindGql, {
  name: 'ValidatorKind',
  description: "Which of a model version's validators produced a result",
  valuesConfig: {
    JSON_SCHEMA: { description: 'The JSON Schema artifact' },
    SHACL: { description: 'The SHACL shapes artifact' },
    OWL: { description: 'The OWL ontology artifact' },
  },
});

export enum SeverityGql {
  ERROR = 'Error',
  WARNING = 'Warning',
  INFO = 'Info',
}
registerEnumType(SeverityGql, {
  name: 'Severity',
  description: 'How serious a violation is; only errors make a report fail',
  valuesConfig: {
    ERROR: { description: 'The payload does not conform' },
    WARNING: { description: 'Worth a look; the payload still conforms' },
    INFO: { description: 'For information only' },
  },
});

// `simpleResolvers`: its fields are the domain's properties under their own names, read by
// graphql-js's default resolver. type-graphql's per-field resolver (a middleware chain, and the
// resolve info graphql-jit builds for each call) was most of what `GET /models` allocated: three
// fields of each of a registry's versions (bench/PROFILE.md, "Twelfth steps"). The other fields
// are resolvers of their own (registry-resolver.ts, record-resolver.ts) and keep them.
@ObjectType('ModelVersion', { description: 'One version of a data model in the registry, with its artifacts and validators', implements: NodeGql, simpleResolvers: true })
@Directive('@key(fields: "model version")')
export class ModelVersionGql {
  // Its `id` (Node's) is made when asked for (RegistryResolver.id): most answers never select it.
  @Field({ description: "The model's identifier, e.g. `re-indicators-specification`" }) model!: string;
  @Field({ description: 'The version, e.g. `0.0.4`' }) version!: string;
  @Field(() => String, { nullable: true, description: 'A human-readable name, when the catalog gives one' }) label!: string | null;
}

/**
 * What an artifact's text costs (demand control): a document of hundreds of KB to MBs (the published
 * 0.0.4 ones are 743 KB to 2.1 MB), priced as 10,000 objects, so that a request holds the three of one
 * version (30,004) but not those of every version, nor one per record of a page.
 */
export const ARTIFACT_CONTENT_WEIGHT = 10_000;

@ObjectType('Artifact', { description: 'A published artifact of a model version, exactly as the registry fetched it' })
export class ArtifactGql {
  @Field(() => ArtifactKindGql, { description: 'Which artifact this is' }) kind!: ArtifactKindGql;
  @Field({ description: 'Its media type, e.g. `text/turtle; charset=utf-8`' }) mediaType!: string;
  @Field({ description: 'An HTTP entity tag of the content: unchanged content, unchanged tag' }) etag!: string;
  @Directive(cost(ARTIFACT_CONTENT_WEIGHT))
  @Field({ description: "The artifact's text" })
  content!: string;
}

@ObjectType('Violation', { description: 'One way a payload fails one validator' })
export class ViolationGql {
  @Field({ description: 'Where in the payload, as a JSONPath (`$.product_info.product_category`)' }) path!: string;
  @Field({ description: "What is wrong, in the validator's words" }) message!: string;
  @Field(() => SeverityGql, { description: 'How serious it is' }) severity!: SeverityGql;
  @Field(() => String, { nullable: true, description: 'The constraint that failed (a JSON Schema keyword, a SHACL constraint component), when known' })
  constraint!: string | null;
  @Directive(cost(FREE_FORM_JSON_WEIGHT))
  @Field(() => GraphQLJSON, { nullable: true, description: 'The offending value, when the validator names one' })
  value!: unknown;
}

@ObjectType('ValidatorResult', { description: 'What one validator of a model version said about a payload' })
export class ValidatorResultGql {
  @Field(() => ValidatorKindGql, { description: 'The validator' }) kind!: ValidatorKindGql;
  @Field({ description: 'True when it found no violation of severity ERROR' }) passed!: boolean;
  @Field(() => [ViolationGql], { description: 'Everything it found, in the order it found it' }) violations!: ViolationGql[];
}

@ObjectType('ValidationReport', { description: 'A payload checked by every validator of a model version' })
export class ValidationReportGql {
  @Field({ description: 'True when every validator passed' }) passed!: boolean;
  @Field(() => [ValidatorResultGql], { description: 'JSON Schema, SHACL and OWL, in this order' }) results!: ValidatorResultGql[];
}

@ObjectType('RegistryError', { description: 'An artifact the registry could not fetch or compile' })
export class RegistryErrorGql {
  @Field({ description: 'The model of the failing artifact' }) model!: string;
  @Field({ description: 'Its version' }) version!: string;
  @Field(() => ArtifactKindGql, { description: 'Which artifact failed' }) artifact!: ArtifactKindGql;
  @Field({ description: 'What went wrong (URLs without credentials or query strings)' }) message!: string;
}

@ObjectType('RefreshRegistryPayload', { description: 'The outcome of reloading the catalog and every artifact' })
export class RefreshRegistryPayloadGql {
  @Field(() => GraphQLDateTime, { description: 'When the refresh finished' }) refreshedAt!: string;
  @Field(() => Int, { description: 'How many model versions the catalog lists' }) modelsFound!: number;
  @Field(() => [RegistryErrorGql], { description: 'The artifacts that failed; their model versions keep serving their previous build, if any' })
  errors!: RegistryErrorGql[];
}

@ObjectType('RegistryHealth', { description: 'Liveness of the model registry and validation service' })
export class RegistryHealthGql {
  @Field({ description: 'Always `ok` when it answers' }) status!: string;
  @Field(() => Int, { description: 'Seconds since the service started' }) uptimeSeconds!: number;
}

@ObjectType('ServiceVersion', { description: 'What software answers' })
export class ServiceVersionGql {
  @Field({ description: "The service's name" }) service!: string;
  @Field({ description: 'Its version' }) serviceVersion!: string;
  @Field({ description: 'The version of its REST API document' }) openapiVersion!: string;
}

@ObjectType('Readiness', { description: 'Whether the registry can serve requests: a model is loaded and the records store answers' })
export class ReadinessGql {
  @Field({ description: 'True when ready' }) ready!: boolean;
  @Field(() => Int, { description: 'Model versions loaded' }) modelsAvailable!: number;
  @Field({ description: '`ok` when the records store answers' }) store!: string;
  @Field(() => [String], { description: 'Why it is not ready; empty when ready' }) reasons!: string[];
}

@ObjectType('RegistryStatus', { description: "The registry's index" })
export class RegistryStatusGql {
  @Field(() => Int, { description: 'Model versions loaded' }) modelsLoaded!: number;
  @Field(() => GraphQLDateTime, { nullable: true, description: 'When the last refresh finished; null before the first' }) lastRefreshAt!: string | null;
  @Field(() => String, {
    nullable: true,
    description: "The catalog revision this replica serves: a digest of its catalog entries and their artifacts' ETags, equal on replicas that answer alike; null before the first load",
  })
  catalogRevision!: string | null;
  @Field(() => [RegistryErrorGql], { description: 'The artifacts the last refresh could not load' }) errors!: RegistryErrorGql[];
}

@ObjectType('ServiceStatus', { description: 'How the service runs: for operators' })
export class ServiceStatusGql {
  @Field(() => Int, { description: 'Seconds since the service started' }) uptimeSeconds!: number;
  @Field({ description: "The service's name" }) service!: string;
  @Field({ description: 'Its version' }) serviceVersion!: string;
  @Field(() => RegistryStatusGql, { description: "The registry's index" }) registry!: RegistryStatusGql;
  @Field({ description: 'The records database: `sqlite` or `postgresql`' }) storeBackend!: string;
  @Field({ description: 'How callers are authenticated: `none`, `jwt_jwks` or `forward_auth`' }) authMode!: string;
  @Field({ description: 'Whether Prometheus metrics are served' }) metricsEnabled!: boolean;
  @Field(() => Int, { description: 'SHACL constraints of the loaded shapes this service does not check' }) shaclUnsupportedConstraints!: number;
}

@ObjectType('RecordsReadiness', { description: 'Whether the records store answers' })
export class RecordsReadinessGql {
  @Field({ description: 'True when it answers' }) ready!: boolean;
  @Field(() => [String], { description: 'Why not; empty when ready' }) reasons!: string[];
}

/** This subgraph's `Health`: every subgraph declares one, each with its own part. */
export const HealthGql = healthType();

@ObjectType('Record', { description: 'A stored record: a payload of a model version. Only records the caller may read are ever shown', implements: NodeGql })
@Directive('@key(fields: "id")')
export class RecordGql {
  @Field(() => ID, { description: "The id its REST paths use, unique among the records of its owner's tenant; `node(id:)` takes it too" }) id!: string;
  @Field({ description: 'The model of its payload (the same as `modelVersion.model`)' }) model!: string;
  @Field({ description: 'The version of that model (the same as `modelVersion.version`)' }) version!: string;
  @Directive(cost(FREE_FORM_JSON_WEIGHT))
  @Field(() => GraphQLJSON, { nullable: true, description: "The payload as submitted; its shape is the model version's" })
  payload!: unknown;
  @Field(() => GraphQLDateTime, { description: 'When it was stored' }) createdAt!: string;
  @Field(() => GraphQLDateTime, { description: 'When it last changed' }) updatedAt!: string;
}

@ObjectType('RecordOwner', { description: 'Who stored a record' })
export class RecordOwnerGql {
  @Field({ description: 'The authenticated subject' }) subject!: string;
  @Field(() => String, { nullable: true, description: 'Their tenant, if any' }) tenant!: string | null;
}
