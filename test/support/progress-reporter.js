import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** How long jest may take to exit once every suite has finished before the run is failed. */
const EXIT_GRACE_MS = Number(process.env.JEST_EXIT_GRACE_MS ?? 60_000);

/**
 * Makes a hang impossible to miss. Each suite's start and end go to stderr and, when
 * JEST_PROGRESS_FILE is set (`.ci/run` sets it), to that file, so that a run cut short by a timeout
 * names the suite it was in. A run whose suites are all done but whose process does not exit (a
 * server, child process or timer left running) fails after EXIT_GRACE_MS instead of hanging.
 */
export default class ProgressReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.file = process.env.JEST_PROGRESS_FILE;
    if (this.file) writeFileSync(this.file, '');
  }

  onTestFileStart(test) {
    this.note(`start ${this.name(test)}`);
  }

  onTestFileResult(test, result) {
    const outcome = result.testExecError || result.numFailingTests > 0 ? 'failed' : 'passed';
    this.note(`${outcome} ${this.name(test)} (${((result.perfStats.end - result.perfStats.start) / 1000).toFixed(1)} s)`);
  }

  onRunComplete() {
    this.note('all suites finished');
    setTimeout(() => {
      this.note(`jest did not exit ${EXIT_GRACE_MS / 1000} s after its last suite: a test left a server, process or timer running`);
      process.exit(1);
    }, EXIT_GRACE_MS).unref();
  }

  name(test) {
    return path.relative(this.rootDir, test.path);
  }

  note(line) {
    const stamped = `[progress ${new Date().toISOString()}] ${line}\n`;
    process.stderr.write(stamped);
    if (this.file) appendFileSync(this.file, stamped);
  }
}
