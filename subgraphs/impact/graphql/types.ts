import 'reflect-metadata';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Directive, Field, InputType, Int, ObjectType } from 'type-graphql';
import { healthType } from '../../../kernel/graphql/health-root.js';
import { FREE_FORM_JSON_WEIGHT, cost } from '../../../kernel/graphql/demand-control.js';
import type { JsonObject } from '../../../kernel/json.js';
import type { ComputeRequest, ModelVersions } from '../domain/compute-request.js';

// The domain's objects are returned as they are: `name` shows a snake_case property under its camelCase name.

@ObjectType('BackgroundDatabase', { description: 'One database of the background project' })
export class BackgroundDatabaseGql {
  @Field({ description: 'Its name' }) name!: string;
  @Field({ description: 'How it is stored (for example `sqlite`)' }) backend!: string;
  @Field(() => String, { nullable: true, description: 'The format it was imported from; null when not recorded' }) format!: string | null;
  @Field(() => Int, { name: 'activityCount', description: 'How many activities it holds' }) activity_count!: number;
}

@ObjectType('BackgroundProject', { description: 'The life cycle inventory data and impact methods calculations will use' })
export class BackgroundProjectGql {
  @Field({ name: 'projectName', description: 'Its name' }) project_name!: string;
  @Field(() => [BackgroundDatabaseGql], { description: 'Its databases, sorted by name' }) databases!: BackgroundDatabaseGql[];
  @Field(() => Int, { name: 'methodCount', description: 'How many impact assessment methods it defines' }) method_count!: number;
  @Field(() => [[String]], { name: 'methodExamples', description: 'The first five methods in sorted order, each named by its parts' })
  method_examples!: string[][];
}

@ObjectType('ImpactEngine', { description: 'The versions of the libraries the impact service uses' })
export class ImpactEngineGql {
  @Field({ name: 'dataLibraryVersion', description: 'The library that reads the background project' }) data_library_version!: string;
  @Field({ name: 'calcLibraryVersion', description: 'The calculation library; `not_available` while none is loaded' }) calc_library_version!: string;
}

@ObjectType('ImpactCapabilities', { description: 'What the impact service can compute with: its background project and libraries' })
export class ImpactCapabilitiesGql {
  @Field({ name: 'calculationStatus', description: 'Whether impact calculations are available: `not_available` for now' }) calculation_status!: string;
  @Field(() => BackgroundProjectGql, { description: 'The background project, as read just now' }) background!: BackgroundProjectGql;
  @Field(() => ImpactEngineGql, { description: 'The libraries used' }) engine!: ImpactEngineGql;
}

@ObjectType('ImpactHealth', { description: 'The impact service: liveness and configuration (it does not open the background project)' })
export class ImpactHealthGql {
  @Field({ description: 'Always `ok` when it answers' }) status!: string;
  @Field({ description: "The service's name" }) service!: string;
  @Field({ description: 'Its version' }) version!: string;
  @Field({ name: 'coreBaseUrl', description: 'The model registry it is configured with' }) core_base_url!: string;
  @Field({ name: 'backgroundProjectDir', description: 'Where the background project is read from' }) background_project_dir!: string;
}

/** This subgraph's `Health`: every subgraph declares one, each with its own part. */
export const HealthGql = healthType();

/** One class for both directions: the versions a request names are the versions a result used. */
@ObjectType('ImpactModelVersions', { description: 'The versions of the three models an Integrated LCA involves' })
@InputType('ImpactModelVersionsInput', { description: 'The versions of the three models an Integrated LCA involves' })
export class ImpactModelVersionsGql implements ModelVersions {
  @Field({ description: 'The version of the Product System model' }) productSystem!: string;
  @Field({ description: 'The version of the LCI Dataset model' }) lciDataset!: string;
  @Field({ description: 'The version of the Integrated LCA model (the result)' }) integratedLca!: string;
}

@InputType('ComputeImpactInput', { description: 'What an Integrated LCA is computed from. The objects follow the model versions named in `modelVersions`' })
export class ComputeImpactInputGql implements ComputeRequest {
  @Field(() => ImpactModelVersionsGql, { description: 'The model versions the objects below follow' }) modelVersions!: ImpactModelVersionsGql;
  @Field(() => GraphQLJSONObject, { description: 'The product system, a Product System object' }) productSystem!: JsonObject;
  @Field(() => [GraphQLJSONObject], { description: 'The foreground inventory, LCI Dataset objects; may be empty' }) lciDatasets!: JsonObject[];
  @Field(() => GraphQLJSONObject, { description: 'Anything else the assessment needs to know; may be empty' }) assessmentContext!: JsonObject;
}

@ObjectType('ImpactComputation', { description: 'An Integrated LCA: what `computeImpact` answers once calculations are available' })
export class ImpactComputationGql {
  @Field(() => ImpactModelVersionsGql, { description: 'The model versions used' }) modelVersions!: ImpactModelVersionsGql;
  @Directive(cost(FREE_FORM_JSON_WEIGHT))
  @Field(() => GraphQLJSONObject, { description: 'The result, an Integrated LCA object following `modelVersions.integratedLca`' })
  integratedLca!: JsonObject;
}
