import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** `../shared/data` relative to the project root. */
export const SHARED_DATA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/data');

/**
 * The shared data is read in place (never copied). Absent: the suite skips with a message, except
 * under CI=true where absence is a failure.
 */
export function sharedDataAvailable(relative = ''): boolean {
  const present = existsSync(path.join(SHARED_DATA_DIR, relative));
  if (present) return true;
  if (process.env.CI === 'true') throw new Error(`shared data missing under CI: ${path.join(SHARED_DATA_DIR, relative)}`);
  console.warn(`skipping: shared data not found at ${path.join(SHARED_DATA_DIR, relative)}`);
  return false;
}

export function sharedPath(...parts: string[]): string {
  return path.join(SHARED_DATA_DIR, ...parts);
}

/** `describe` when the shared data is there, `describe.skip` otherwise. */
export function describeWithSharedData(relative: string): jest.Describe {
  return sharedDataAvailable(relative) ? describe : describe.skip;
}
