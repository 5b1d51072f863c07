import { TestEnvironment } from 'jest-environment-node';

/**
 * jest's node environment that also stops what test code registered with `stopAtScopeEnd`
 * (cleanup.ts): what a test (or its beforeEach) started once the test and its afterEach hooks are
 * done, what a describe block's (or the file's) beforeAll started once its afterAll hooks are done.
 * After the scope's own hooks, so that they still stop things in the order they need; whatever they
 * left running is stopped here, whatever failed.
 */
export default class CleanupEnvironment extends TestEnvironment {
  async handleTestEvent(event, state) {
    const scopes = this.global.__cleanupScopes;
    if (!scopes) return; // the file never imported cleanup.ts: nothing to stop
    // test_started, not test_start: a skipped test starts but is never done.
    if (event.name === 'run_describe_start' || event.name === 'test_started') scopes.enter();
    // run_finish: what the file started while it was being loaded, outside any hook.
    else if (event.name === 'run_describe_finish' || event.name === 'test_done' || event.name === 'run_finish') {
      try {
        await scopes.exit();
      } catch (error) {
        state.unhandledErrors.push(error);
      }
    }
  }
}
