import net from 'node:net';

/**
 * Jest setup for every suite: no connection leaves this machine. A socket that this process opens
 * to an address outside the loopback range, or to a host name other than `localhost` (whose lookup
 * would already ask the network's resolver), is refused as a closed port would refuse it, and the
 * test that was running fails with the destination and the stack that asked for it. Servers the
 * suites start as child processes are outside its reach; they run the code the in-process suites
 * run here.
 */

/** The destinations refused so far and not yet reported; on the (process-wide) Socket prototype. */
const REFUSED = Symbol.for('cerise.test.refusedConnections');
type GuardedSocket = net.Socket & { [REFUSED]?: string[] };

const prototype = net.Socket.prototype as GuardedSocket;
// Once per process: jest runs every suite file of a worker against the same core modules.
if (!prototype[REFUSED]) {
  const refused: string[] = (prototype[REFUSED] = []);
  const connect = prototype.connect as (...args: unknown[]) => net.Socket;
  prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const to = destination(args);
    if (to === undefined || isLoopback(to.host)) return connect.apply(this, args);
    refused.push(`${to.host}:${String(to.port)}\n${new Error('connection attempted').stack}`);
    const error = Object.assign(new Error(`connect ECONNREFUSED ${to.host}:${String(to.port)} (outside this machine: refused in tests)`), { code: 'ECONNREFUSED' });
    process.nextTick(() => this.destroy(error));
    return this;
  } as typeof prototype.connect;
}

afterEach(() => {
  const refused = takeRefusedConnections();
  if (refused.length > 0) throw new Error(`connections outside this machine were attempted:\n${refused.join('\n')}`);
});

/** The refused destinations (`host:port`, then the stack) not yet reported, which are then forgotten. */
export function takeRefusedConnections(): string[] {
  return prototype[REFUSED]!.splice(0);
}

/** Host and port of `socket.connect(...)`'s arguments in any of its forms; undefined for an IPC path. */
function destination(args: unknown[]): { host: string; port: unknown } | undefined {
  // net.connect() hands the socket its arguments already normalised: [options, callback].
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === 'object' && first !== null) {
    // An HTTP agent's options carry `path: null`; a string is the IPC path itself.
    const options = first as { path?: string | null; host?: string | null; port?: unknown };
    return typeof options.path === 'string' ? undefined : { host: options.host ?? 'localhost', port: options.port };
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return undefined;
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: first };
}

function isLoopback(host: string): boolean {
  const address = host.replace(/^\[(.*)\]$/, '$1');
  if (address === 'localhost') return true;
  if (net.isIPv4(address)) return address.startsWith('127.');
  return address === '::1' || /^::ffff:127\./i.test(address);
}
