import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stopAtScopeEnd } from './cleanup.js';
import { base64url, exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey, JWK } from 'jose';

/**
 * A real identity provider key set for tests: an HTTP server on 127.0.0.1 (random port) serving
 * `/jwks.json` with real RS256 and ES256 keys, which can rotate keys, go down and up, count fetches,
 * and sign tokens, good or crafted to be rejected.
 *
 *   const idp = await JwksServer.start();
 *   const env = idp.authEnv();                  // AUTH_MODE, AUTH_JWKS_URL, AUTH_ISSUER, AUTH_AUDIENCE
 *   const token = await idp.sign({ scope: 'records:read' });
 *   await idp.close();
 */
export type SigningAlgorithm = 'RS256' | 'ES256';

/** Claims merged over the defaults; a claim set to `undefined` is left out of the token. */
export type Claims = Record<string, unknown>;

interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

export const TEST_ISSUER = 'https://idp.test/realms/dpp';
export const TEST_AUDIENCE = 'dpp-api';
export const TEST_SUBJECT = 'user-1';

export function nowSecs(): number {
  return Math.floor(Date.now() / 1000);
}

export class JwksServer {
  /** Requests served on the key set path since start (or the last `resetFetchCount`). */
  fetchCount = 0;
  private published: SigningKey[] = [];
  private readonly current = new Map<SigningAlgorithm, SigningKey>();
  private failureStatus: number | undefined;
  private port = 0;
  private keyCounter = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<JwksServer> {
    const idp = new JwksServer(createServer((request, response) => idp.handle(request.url, response)));
    await idp.rotate('RS256');
    await idp.rotate('ES256');
    await idp.up();
    stopAtScopeEnd(() => idp.close());
    return idp;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/jwks.json`;
  }

  /** The environment of a jwt_jwks process pointed at this server. */
  authEnv(): Record<string, string> {
    return { AUTH_MODE: 'jwt_jwks', AUTH_JWKS_URL: this.url, AUTH_ISSUER: TEST_ISSUER, AUTH_AUDIENCE: TEST_AUDIENCE };
  }

  kid(alg: SigningAlgorithm = 'RS256'): string {
    return this.signingKey(alg).kid;
  }

  /** A new key (new kid) becomes the one that signs for `alg`; older keys stay published unless retired. */
  async rotate(alg: SigningAlgorithm = 'RS256', options: { retireOld?: boolean } = {}): Promise<string> {
    const key = await newKey(alg, `${alg.toLowerCase()}-${++this.keyCounter}-${Date.now()}`);
    if (options.retireOld) this.published = this.published.filter((published) => published.alg !== alg);
    this.published.push(key);
    this.current.set(alg, key);
    return key.kid;
  }

  /** Stops listening and drops open connections: clients get connection refused. */
  async down(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  /** Listens again, on the same port once one was chosen. */
  async up(): Promise<void> {
    if (this.server.listening) return;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Answers the key set path with this status (e.g. 500) until called with undefined. */
  failWith(status: number | undefined): void {
    this.failureStatus = status;
  }

  resetFetchCount(): void {
    this.fetchCount = 0;
  }

  async close(): Promise<void> {
    await this.down();
  }

  /** A token signed by the current key of `alg` (kid in the header), claims over the defaults. */
  async sign(claims: Claims = {}, alg: SigningAlgorithm = 'RS256'): Promise<string> {
    return signWith(this.signingKey(alg), claims);
  }

  /** Signed by a fresh key that the server does not publish: its kid is unknown. */
  async signWithUnknownKid(claims: Claims = {}, alg: SigningAlgorithm = 'RS256'): Promise<string> {
    return signWith(await newKey(alg, `unknown-${++this.keyCounter}-${Date.now()}`), claims);
  }

  /** An unsecured token (`alg: none`, empty signature), built by hand as an attacker would. */
  algNoneToken(claims: Claims = {}): string {
    const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
    return `${header}.${base64url.encode(JSON.stringify(withDefaults(claims)))}.`;
  }

  /** HS256 with the RS256 public key's PEM as the HMAC secret (the algorithm-confusion attack). */
  async hs256WithPublicKey(claims: Claims = {}): Promise<string> {
    const key = this.signingKey('RS256');
    const secret = new TextEncoder().encode(await exportSPKI(key.publicKey));
    return new SignJWT(withDefaults(claims)).setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'JWT' }).sign(secret);
  }

  private signingKey(alg: SigningAlgorithm): SigningKey {
    const key = this.current.get(alg);
    if (!key) throw new Error(`no ${alg} key`);
    return key;
  }

  private handle(url: string | undefined, response: ServerResponse): void {
    if (url !== '/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    this.fetchCount += 1;
    if (this.failureStatus !== undefined) {
      response.writeHead(this.failureStatus).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/jwk-set+json' });
    response.end(JSON.stringify({ keys: this.published.map((key) => key.jwk) }));
  }
}

async function newKey(alg: SigningAlgorithm, kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

function signWith(key: SigningKey, claims: Claims): Promise<string> {
  return new SignJWT(withDefaults(claims)).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
}

function withDefaults(claims: Claims): Record<string, unknown> {
  const now = nowSecs();
  const merged: Record<string, unknown> = { iss: TEST_ISSUER, aud: TEST_AUDIENCE, sub: TEST_SUBJECT, iat: now, exp: now + 300, ...claims };
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined));
}
