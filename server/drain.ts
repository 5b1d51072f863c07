import type { Server } from 'node:http';

/** How often connections that went idle during a drain are closed. */
const IDLE_SWEEP_MS = 50;

/**
 * Stops the servers accepting connections and waits for their requests in flight, at most until
 * `deadline` (epoch milliseconds), then cuts whatever is left. Node keeps a keep-alive connection
 * open until its keep-alive timeout even while closing, so connections are closed as soon as they
 * go idle, and a request that still arrives on one is answered with `Connection: close`.
 */
export async function drain(servers: Server[], deadline: number): Promise<void> {
  await Promise.all(servers.map((server) => drainOne(server, deadline)));
}

function drainOne(server: Server, deadline: number): Promise<void> {
  return new Promise((resolve) => {
    server.prependListener('request', (_request, response) => response.setHeader('connection', 'close'));
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const cut = setTimeout(() => server.closeAllConnections(), Math.max(0, deadline - Date.now()));
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(cut);
      resolve();
    });
  });
}
