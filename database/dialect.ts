import type { Backend } from './location.js';

/**
 * What plain statements write differently on each database: a bound value's placeholder and the
 * larger of two values. (The records store's own dialect, subgraphs/models/store/sql/, adds the JSON
 * its queries need.)
 */
export interface SqlBasics {
  /** The placeholder of the bound value at `position` (from 1). */
  placeholder(position: number): string;
  greatest(a: string, b: string): string;
}

export const SQL_BASICS: Record<Backend, SqlBasics> = {
  postgresql: { placeholder: (position) => `$${position}`, greatest: (a, b) => `GREATEST(${a}, ${b})` },
  sqlite: { placeholder: (position) => `?${position}`, greatest: (a, b) => `MAX(${a}, ${b})` },
};
