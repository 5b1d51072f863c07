import { type Server, type Socket, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { stopAtScopeEnd } from './cleanup.js';

/** A TCP peer that accepts connections and never answers (a hung upstream); stopped with its scope. */
export async function silentPeer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: stopAtScopeEnd(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    }),
  };
}
