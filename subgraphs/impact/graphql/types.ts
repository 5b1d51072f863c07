import 'reflect-metadata';
import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('BackgroundDatabase')
export class BackgroundDatabaseGql {
  @Field() name!: string;
  @Field() backend!: string;
  @Field(() => String, { nullable: true }) format!: string | null;
  @Field(() => Int) activityCount!: number;
}

@ObjectType('BackgroundProject')
export class BackgroundProjectGql {
  @Field() projectName!: string;
  @Field(() => [BackgroundDatabaseGql]) databases!: BackgroundDatabaseGql[];
  @Field(() => Int) methodCount!: number;
  @Field(() => [[String]], { description: 'The first five methods in sorted order, each an array of strings' }) methodExamples!: string[][];
}

@ObjectType('ImpactEngine')
export class ImpactEngineGql {
  @Field() dataLibraryVersion!: string;
  @Field() calcLibraryVersion!: string;
}

@ObjectType('ImpactCapabilities')
export class ImpactCapabilitiesGql {
  @Field() calculationStatus!: string;
  @Field(() => BackgroundProjectGql) background!: BackgroundProjectGql;
  @Field(() => ImpactEngineGql) engine!: ImpactEngineGql;
}

@ObjectType('ImpactHealth')
export class ImpactHealthGql {
  @Field() status!: string;
  @Field() service!: string;
  @Field() version!: string;
  @Field() coreBaseUrl!: string;
  @Field() backgroundProjectDir!: string;
}
