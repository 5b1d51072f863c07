import { parentPort } from 'node:worker_threads';
import { prepareArtifacts, transferablesOf } from '../domain/validation/prepare-artifacts.js';
import type { PrepareAnswer, PrepareRequest } from './artifact-preparer.js';

/** The worker thread of `WorkerArtifactPreparer`: one request per model version, answered in order. */
parentPort!.on('message', ({ id, texts, rootClass }: PrepareRequest) => {
  const prepared = prepareArtifacts(texts, rootClass);
  parentPort!.postMessage({ id, prepared } satisfies PrepareAnswer, transferablesOf(prepared));
});
