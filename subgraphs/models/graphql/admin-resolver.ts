import { Authorized, FieldResolver, Resolver } from 'type-graphql';
import { healthRoot } from '../../../kernel/graphql/health-root.js';
import type { AdminService } from '../domain/admin/admin-service.js';
import type { RecordService } from '../domain/records/record-service.js';
import { HealthGql, ReadinessGql, RecordsReadinessGql, RegistryHealthGql, RegistryStatusGql, ServiceStatusGql, ServiceVersionGql } from './types.js';

/** `health`: this subgraph's part (the indicators and impact subgraphs add theirs to the same type). */
@Resolver(() => HealthGql)
export class AdminResolver extends healthRoot(HealthGql) {
  constructor(
    private readonly admin: AdminService,
    private readonly recordService: RecordService,
  ) {
    super();
  }

  // Public: the liveness probe needs no authentication (doc 01).
  @FieldResolver(() => RegistryHealthGql, { description: 'Liveness of the model registry and validation service' })
  registry(): RegistryHealthGql {
    return { status: 'ok', uptimeSeconds: this.admin.uptimeSeconds() };
  }

  @Authorized('admin.ready')
  @FieldResolver(() => ReadinessGql, { description: 'Whether the registry can serve: a model loaded and the records store answering' })
  readiness(): Promise<ReadinessGql> {
    return this.admin.readiness();
  }

  // Public: the records backend's readiness probe needs no credentials (DECISIONS section 2).
  @FieldResolver(() => RecordsReadinessGql, { description: 'Whether the records store answers' })
  records(): Promise<RecordsReadinessGql> {
    return this.recordService.readiness();
  }

  @Authorized('admin.version')
  @FieldResolver(() => ServiceVersionGql, { description: "The registry service's name and versions" })
  version(): ServiceVersionGql {
    return this.admin.identity;
  }

  @Authorized('admin.status')
  @FieldResolver(() => ServiceStatusGql, { description: 'How the registry service runs: for operators' })
  status(): ServiceStatusGql {
    const status = this.admin.status();
    return {
      uptimeSeconds: status.uptimeSeconds,
      service: status.service,
      serviceVersion: status.serviceVersion,
      registry: status.registry as RegistryStatusGql,
      storeBackend: status.store.backend,
      authMode: status.authMode,
      metricsEnabled: status.metricsEnabled,
      shaclUnsupportedConstraints: status.validators.shacl.unsupportedConstraints,
    };
  }
}
