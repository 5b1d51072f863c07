import { type Server, type Socket, connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { stopAtScopeEnd } from './cleanup.js';

/**
 * A TCP proxy on 127.0.0.1 in front of a server (PostgreSQL in the outage tests): `down()` stops
 * listening and cuts every open connection, as a database that stops would; `up()` listens again
 * on the same port.
 *
 *   const proxy = await TcpProxy.start('127.0.0.1', 5432);   // proxy.port
 *   await proxy.down(); … await proxy.up();
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private port_ = 0;

  private constructor(
    private readonly server: Server,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(host: string, port: number): Promise<TcpProxy> {
    const proxy: TcpProxy = new TcpProxy(
      createServer((client) => proxy.relay(client)),
      { host, port },
    );
    await proxy.up();
    stopAtScopeEnd(() => proxy.down());
    return proxy;
  }

  get port(): number {
    return this.port_;
  }

  async up(): Promise<void> {
    if (this.server.listening) return;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port_, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port_ = (this.server.address() as AddressInfo).port;
  }

  async down(): Promise<void> {
    const closed = this.server.listening ? new Promise<void>((resolve) => this.server.close(() => resolve())) : Promise.resolve();
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private relay(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      // A cut connection is the point of this proxy: both sides just close.
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }
}
