import { createServer } from 'node:net';

/**
 * A port that is free now, below the kernel's range for ephemeral ports (32768 and up on Linux), for
 * a server that a test stops and starts again on the same port (a replica, a PostgreSQL cluster of
 * its own, HAProxy's frontends): while it is stopped, a port of the ephemeral range could be taken by
 * any outgoing connection or port-0 listener of a suite running beside this one.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    if (await bindable(port)) return port;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
