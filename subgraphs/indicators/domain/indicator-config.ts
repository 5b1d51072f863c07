/**
 * DECISIONS section 5: the service's settings, each from the variable named (read at start-up by
 * server/indicators-config.ts; the domain never reads the environment).
 */
export interface IndicatorConfig {
  /**
   * `CORE_BASE_URL` (alias `HEX_CORE_BASE_URL`); default: this process's core facade, at its bind
   * address (loopback when it binds every interface) and its bound port (see `BoundPort`).
   */
  coreBaseUrl: string;
  /** `ARTIFACT_BASE_URL_TEMPLATE` with `{version}`; default: the bundled sample under `examples/`. */
  artifactBaseUrlTemplate: string;
  /** `HTTP_TIMEOUT_SECS` (15): bound on every outbound call, core and artifact host alike. */
  httpTimeoutSecs: number;
  /** `INDICATORS_SKIP_VALIDATION` (false): the only way to get `validation_skipped`. */
  skipValidation: boolean;
  /**
   * `INDICATORS_ARTIFACT_FRESHNESS_SECS` (60): a fetched calculation artifact is reused without any
   * request for this long, then revalidated with its ETag (a 304 costs no body and no parsing).
   */
  artifactFreshnessSecs: number;
  /**
   * `INDICATORS_CORE_SERVICE_NAME` (`CORE_SERVICE_NAME`): `validation.source`, the core's `service`
   * name as its `GET /admin/version` reports it. Configured rather than fetched: that endpoint needs
   * authentication and would cost a call, for a value that only changes with the deployment.
   */
  coreServiceName: string;
  /** `SERVER_HOST` (alias `BIND_ADDRESS`) and `INDICATORS_PORT` (the bound port once listening), reported by `/health`. */
  bindAddress: string;
  port: number;
}
