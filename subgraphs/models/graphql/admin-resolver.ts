import { Authorized, Query, Resolver } from 'type-graphql';
import type { AdminService } from '../domain/admin/admin-service.js';
import { CoreHealthGql, CoreReadinessGql, CoreStatusGql, CoreVersionGql, RegistryStatusGql } from './types.js';

@Resolver()
export class AdminResolver {
  constructor(private readonly admin: AdminService) {}

  // Public: the liveness probe is the one core operation without authentication (doc 01).
  @Query(() => CoreHealthGql)
  coreHealth(): CoreHealthGql {
    return { status: 'ok', uptimeSeconds: this.admin.uptimeSeconds() };
  }

  @Authorized('admin.version')
  @Query(() => CoreVersionGql)
  coreVersion(): CoreVersionGql {
    return this.admin.identity;
  }

  @Authorized('admin.ready')
  @Query(() => CoreReadinessGql)
  coreReadiness(): Promise<CoreReadinessGql> {
    return this.admin.readiness();
  }

  @Authorized('admin.status')
  @Query(() => CoreStatusGql)
  coreStatus(): CoreStatusGql {
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
