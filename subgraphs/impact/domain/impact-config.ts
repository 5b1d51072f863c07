/** DECISIONS sections 1, 5 and 6; each from the variable named (read at start-up by server/impact-config.ts). */
export interface ImpactConfig {
  /**
   * `BACKGROUND_PROJECT_DIR` (`./data/brightway-project`), resolved against the working directory at
   * startup so a later `chdir` cannot move it. It may be absent: `/capabilities` then answers 503.
   */
  backgroundProjectDir: string;
  /** `CORE_BASE_URL` (alias `HEX_CORE_BASE_URL`); default: this process's core facade on loopback. */
  coreBaseUrl: string;
}
