/**
 * Why a registry refresh runs, apart from the registry itself: the primary that conducts its
 * workers' refreshes reads these without loading the validators a registry compiles.
 */

/** Why a refresh run is asked for; `announced` kinds are told to the other replicas once they are served. */
export type RefreshAsk =
  | { kind: 'load' }
  | { kind: 'caller' }
  | { kind: 'catalog-changed' }
  /** Another replica serves `revision`. */
  | { kind: 'follow'; revision: string };

/** Whether a run asked for so is announced to the other replicas: a caller's, or a changed catalog's. */
export function announces(ask: RefreshAsk): boolean {
  return ask.kind === 'caller' || ask.kind === 'catalog-changed';
}

/** Whether the asks only follow `revision` (another replica's announcement of what this one serves already). */
export function followsOnly(asks: RefreshAsk[], revision: string | null): boolean {
  return asks.every((ask) => ask.kind === 'follow' && ask.revision === revision);
}
