import 'reflect-metadata';
import { GraphQLJSON } from 'graphql-scalars';
import { Directive, Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum ArtifactKindGql {
  schema = 'schema',
  shacl = 'shacl',
  owl = 'owl',
}
registerEnumType(ArtifactKindGql, { name: 'ArtifactKind', description: 'The raw artifacts of a model version' });

// Enum values keep the contract's spelling so REST reports and GraphQL reports read the same.
export enum ValidatorKindGql {
  JsonSchema = 'JsonSchema',
  Shacl = 'Shacl',
  Owl = 'Owl',
}
registerEnumType(ValidatorKindGql, { name: 'ValidatorKind' });

export enum SeverityGql {
  Error = 'Error',
  Warning = 'Warning',
  Info = 'Info',
}
registerEnumType(SeverityGql, { name: 'Severity' });

@ObjectType('ModelVersion', { description: 'A version of a data model in the registry' })
@Directive('@key(fields: "model version")')
export class ModelVersionGql {
  @Field() model!: string;
  @Field() version!: string;
  @Field({ nullable: true, description: 'Set for entries such as the bundled sample model' }) label?: string;
}

@ObjectType('Artifact', { description: 'A raw artifact exactly as fetched by the registry' })
export class ArtifactGql {
  @Field(() => ArtifactKindGql) kind!: ArtifactKindGql;
  @Field() mediaType!: string;
  @Field() etag!: string;
  @Field() content!: string;
}

@ObjectType('Violation')
export class ViolationGql {
  @Field({ description: 'JSONPath into the payload' }) path!: string;
  @Field() message!: string;
  @Field(() => SeverityGql) severity!: SeverityGql;
  @Field({ nullable: true }) constraint?: string;
  @Field(() => GraphQLJSON, { nullable: true }) value?: unknown;
}

@ObjectType('ValidatorResult')
export class ValidatorResultGql {
  @Field(() => ValidatorKindGql) kind!: ValidatorKindGql;
  @Field() passed!: boolean;
  @Field(() => [ViolationGql]) violations!: ViolationGql[];
}

@ObjectType('ValidationReport')
export class ValidationReportGql {
  @Field() passed!: boolean;
  @Field(() => [ValidatorResultGql], { description: 'JsonSchema, Shacl and Owl, in this order' }) results!: ValidatorResultGql[];
}

@ObjectType('RegistryError')
export class RegistryErrorGql {
  @Field() model!: string;
  @Field() version!: string;
  @Field(() => ArtifactKindGql) artifact!: ArtifactKindGql;
  @Field() message!: string;
}

@ObjectType('RefreshReport')
export class RefreshReportGql {
  @Field() refreshedAt!: string;
  @Field(() => Int) modelsFound!: number;
  @Field(() => [RegistryErrorGql]) errors!: RegistryErrorGql[];
}

@ObjectType('CoreHealth')
export class CoreHealthGql {
  @Field() status!: string;
  @Field(() => Int) uptimeSeconds!: number;
}

@ObjectType('CoreVersion')
export class CoreVersionGql {
  @Field() service!: string;
  @Field() serviceVersion!: string;
  @Field() openapiVersion!: string;
}

@ObjectType('CoreReadiness')
export class CoreReadinessGql {
  @Field() ready!: boolean;
  @Field(() => Int) modelsAvailable!: number;
  @Field() store!: string;
  @Field(() => [String]) reasons!: string[];
}

@ObjectType('RegistryStatus')
export class RegistryStatusGql {
  @Field(() => Int) modelsLoaded!: number;
  @Field({ nullable: true }) lastRefreshAt?: string;
  @Field(() => [RegistryErrorGql]) errors!: RegistryErrorGql[];
}

@ObjectType('CoreStatus')
export class CoreStatusGql {
  @Field(() => Int) uptimeSeconds!: number;
  @Field() service!: string;
  @Field() serviceVersion!: string;
  @Field(() => RegistryStatusGql) registry!: RegistryStatusGql;
  @Field() storeBackend!: string;
  @Field() authMode!: string;
  @Field() metricsEnabled!: boolean;
  @Field(() => Int) shaclUnsupportedConstraints!: number;
}

@ObjectType('Record', { description: 'A stored record (DECISIONS sections 3 and 4): only records the caller may read are ever returned' })
@Directive('@key(fields: "id")')
export class RecordGql {
  @Field(() => ID) id!: string;
  @Field() model!: string;
  @Field() version!: string;
  @Field(() => GraphQLJSON, { nullable: true, description: 'As submitted: an object for core records, any JSON value from the records backend' })
  payload!: unknown;
  @Field({ description: 'ISO 8601 UTC with milliseconds' }) createdAt!: string;
  @Field({ description: 'ISO 8601 UTC with milliseconds' }) updatedAt!: string;
}

@ObjectType('RecordOwner', { description: 'Who created a record: the authenticated subject and tenant' })
export class RecordOwnerGql {
  @Field() subject!: string;
  @Field(() => String, { nullable: true }) tenant!: string | null;
}

@ObjectType('RecordCreation')
export class RecordCreationGql {
  @Field(() => RecordGql) record!: RecordGql;
  @Field({ description: 'True when the idempotency key was used before for the same request: `record` is the original' })
  replayed!: boolean;
}

@ObjectType('RecordsReadiness')
export class RecordsReadinessGql {
  @Field() ready!: boolean;
  @Field(() => [String]) reasons!: string[];
}
