import path from 'node:path';
import { type Env, optional, string } from '../kernel/config/env.js';
import type { ImpactConfig } from '../subgraphs/impact/domain/impact-config.js';

const DEFAULT_BACKGROUND_PROJECT_DIR = './data/brightway-project';

/** The impact service's variables (DECISIONS sections 1 and 6), read with everything else at start-up. */
export type ImpactSettings = Omit<ImpactConfig, 'coreBaseUrl'>;

export function readImpactSettings(env: Env): ImpactSettings {
  // Resolved now, so that a later change of the working directory cannot move it.
  return { backgroundProjectDir: path.resolve(optional(env, 'BACKGROUND_PROJECT_DIR', string, DEFAULT_BACKGROUND_PROJECT_DIR)) };
}

/** The domain's configuration: the core's URL (server/core-url.ts) is read on each use. */
export function impactConfig(settings: ImpactSettings, coreBaseUrl: () => string): ImpactConfig {
  return {
    ...settings,
    get coreBaseUrl() {
      return coreBaseUrl();
    },
  };
}
