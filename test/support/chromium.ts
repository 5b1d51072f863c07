import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

/**
 * Debian's Chromium, installed here when missing (the npm packages' own browser downloads cannot
 * reach their hosts). Needs root and the Debian mirror; without them the caller gets an error.
 */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const install = spawnSync('bash', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium'], {
    stdio: 'ignore',
    timeout: 600_000,
  });
  if (install.status !== 0 || !existsSync(CHROMIUM)) throw new Error('Chromium is not installed and apt-get could not install it');
  return CHROMIUM;
}

/** Headless Chromium with the flags this closed network needs (no background connections). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: ensureChromium(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      // Its background services still look up Google's hosts (sign-in, autofill): nothing resolves
      // but 127.0.0.1 (the rules apply to addresses too), so no lookup leaves here. What remains is
      // its IPv6 reachability check, a UDP connect() to 2001:4860:4860::8888 that sends nothing.
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
}
