import type { RequestListener } from 'node:http';

/** What answers an edge's listeners for one supergraph: each listener's handler, by listener name. */
export interface ServingEdge {
  handlers: Readonly<Record<string, RequestListener>>;
  /** Called once none of its requests is in flight any more, after another took over. */
  stop(): Promise<void>;
}

interface Served {
  edge: ServingEdge;
  inFlight: number;
  /** Set once another edge took over: resolves when its last request has ended. */
  idle?: () => void;
}

/**
 * The edge of a process that follows the schema registry: each listener keeps listening and hands
 * every request to the edge current when the request arrived (its headers read), which answers it
 * to the end, however long its body takes to arrive or its subgraphs to answer. `switchTo` makes
 * another edge current at once; the one before is stopped when its last request has ended.
 */
export class EdgeSwitch {
  private current: Served;
  private readonly retiring = new Set<Promise<void>>();

  constructor(first: ServingEdge) {
    this.current = { edge: first, inFlight: 0 };
  }

  /** The request listener of `listener`: the current edge's, for each request. */
  handler(listener: string): RequestListener {
    return (request, response) => {
      const served = this.current;
      served.inFlight++;
      // `close` follows `finish`, and comes alone when the connection is lost first: once either way.
      response.once('close', () => {
        if (--served.inFlight === 0) served.idle?.();
      });
      served.edge.handlers[listener]!(request, response);
    };
  }

  /** `edge` answers every request from now on; resolves once the one before has stopped. */
  switchTo(edge: ServingEdge): Promise<void> {
    const previous = this.current;
    this.current = { edge, inFlight: 0 };
    const retired = this.retire(previous);
    this.retiring.add(retired);
    return retired.finally(() => this.retiring.delete(retired));
  }

  /** The current edge stopped, after those still finishing their requests (the listeners are closed by then). */
  async stop(): Promise<void> {
    await Promise.all(this.retiring);
    await this.current.edge.stop();
  }

  private async retire(served: Served): Promise<void> {
    if (served.inFlight > 0) await new Promise<void>((resolve) => (served.idle = resolve));
    await served.edge.stop();
  }
}
