import path from 'node:path';
import { type Env, optional, string, url } from '../kernel/config/env.js';
import type { ImpactConfig } from '../subgraphs/impact/domain/impact-config.js';
import type { HttpConfig } from './config.js';

const DEFAULT_BACKGROUND_PROJECT_DIR = './data/brightway-project';

/** DECISIONS sections 1, 5 and 6, read with everything else at start-up. */
export function readImpactConfig(env: Env, http: HttpConfig): ImpactConfig {
  const coreBaseUrl = optional(env, ['CORE_BASE_URL', 'HEX_CORE_BASE_URL'], url(), new URL(`http://127.0.0.1:${http.ports.core}`));
  return {
    // Resolved now, so that a later change of the working directory cannot move it.
    backgroundProjectDir: path.resolve(optional(env, 'BACKGROUND_PROJECT_DIR', string, DEFAULT_BACKGROUND_PROJECT_DIR)),
    coreBaseUrl: coreBaseUrl.href.replace(/\/$/, ''),
  };
}
