import path from 'node:path';
import { integer, optional, string, url } from '../../../kernel/config/env.js';
import type { Env } from '../../../kernel/config/env.js';

/** The impact service's identity as `/health` reports it; the version moves with its API contract. */
export const IMPACT_SERVICE_NAME = 'impact-calculation-service';
export const IMPACT_SERVICE_VERSION = '0.1.0';

/** DECISIONS sections 1, 5 and 6; every value is overridable by the variable named. */
export interface ImpactConfig {
  /**
   * `BACKGROUND_PROJECT_DIR` (`./data/brightway-project`), resolved against the working directory at
   * startup so a later `chdir` cannot move it. It may be absent: `/capabilities` then answers 503.
   */
  backgroundProjectDir: string;
  /** `CORE_BASE_URL` (alias `HEX_CORE_BASE_URL`); default: this process's core facade on loopback. */
  coreBaseUrl: string;
}

const DEFAULT_BACKGROUND_PROJECT_DIR = './data/brightway-project';
const DEFAULT_CORE_PORT = 8080;

export function readImpactConfig(env: Env): ImpactConfig {
  const corePort = optional(env, ['CORE_PORT', 'SERVER_PORT'], integer({ min: 0, max: 65535 }), DEFAULT_CORE_PORT);
  const coreBaseUrl = optional(env, ['CORE_BASE_URL', 'HEX_CORE_BASE_URL'], url(), new URL(`http://127.0.0.1:${corePort}`));
  return {
    backgroundProjectDir: path.resolve(optional(env, 'BACKGROUND_PROJECT_DIR', string, DEFAULT_BACKGROUND_PROJECT_DIR)),
    coreBaseUrl: coreBaseUrl.href.replace(/\/$/, ''),
  };
}
