/** ts-jest (not esbuild) because type-graphql needs emitDecoratorMetadata. ESM because jose and
 * rdf-validate-shacl ship only ESM. */
export default {
  // jest's node environment, stopping whatever a test started when its scope ends (test/support/cleanup.ts).
  testEnvironment: '<rootDir>/test/support/test-environment.js',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Every suite fails on a connection to anything but this machine (the suite needs no network).
  setupFilesAfterEnv: ['<rootDir>/test/support/loopback-only.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  // A test (or hook) that hangs fails after two minutes instead of holding the run: a hook that
  // starts systems as deployments run them (a primary and its workers each) takes tens of seconds
  // on a busy 2-core machine.
  testTimeout: 120000,
  // Two suites at a time: most of a suite's time is spent waiting (a system starting, a flush, a
  // drain, a slow upstream), so a second suite uses the CPU the first leaves idle (1.2 to 1.45 times
  // faster on the 2-CPU machine CI runs on, measured on six system suites). Every suite starts what
  // it needs on free ports and databases of its own, so none depends on running alone.
  maxWorkers: 2,
  // Each suite's start and end on stderr and in JEST_PROGRESS_FILE: a run cut by a timeout names the suite it was in.
  reporters: ['default', '<rootDir>/test/support/progress-reporter.js'],
};
