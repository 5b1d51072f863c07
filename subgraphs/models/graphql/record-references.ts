import DataLoader from 'dataloader';
import type { RequestContext } from '../../../kernel/graphql/request-context.js';
import type { RecordService } from '../domain/records/record-service.js';
import type { StoredRecord } from '../domain/records/record-store.js';

/**
 * Record entities as federation's `_entities` resolves them: one `__resolveReference` per
 * representation. Those of one request asked for together (DataLoader: within the same tick) are
 * read together, `RecordService.findMany`, so that a batch of representations is a few store reads
 * rather than one per representation, each waiting for the one before it (the request's reads take
 * turns: kernel/request-budget.ts). Each request has its own loader, gone with its context; it keeps
 * no records (`cache: false`): the store reads a repeated id once in a batch anyway. `services` is
 * read only when a lookup runs (composition builds the schema without any).
 */
export function recordReferences(services: { records: RecordService }): (reference: Record<string, unknown>, context: RequestContext) => Promise<StoredRecord | null> {
  const loaders = new WeakMap<RequestContext, DataLoader<string, StoredRecord | null>>();
  return (reference, context) => {
    let loader = loaders.get(context);
    if (!loader) {
      loader = new DataLoader(async (ids) => services.records.findMany(await context.authorize('records.read'), ids, context.budget), { cache: false });
      loaders.set(context, loader);
    }
    return loader.load(String(reference.id));
  };
}
