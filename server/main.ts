import 'reflect-metadata';
import { ConfigError } from '../kernel/config/env.js';
import { readSystemConfig } from './config.js';
import { startSystem } from './system.js';

/**
 * `npm run serve`: configuration from the environment only, the way a deployment starts it.
 * A bad value fails with one line naming the variable and exit code 1.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = readSystemConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  if (config.auth.mode === 'none') {
    console.warn('WARNING: AUTH_MODE=none: authentication is disabled and every caller is the local identity. Never run this in production.');
  }
  const system = await startSystem(config).catch((error: Error) => {
    console.error(`startup failed: ${error.message}`);
    process.exit(1);
  });
  const shutdown = async (signal: string) => {
    system.logger.info({ signal }, 'stopping');
    await system.stop();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  // Only once the handlers are in place: whoever reads this line may signal at once, and a signal
  // that came before them would end the process without draining (the default action).
  system.logger.info({ ports: system.ports, role: config.process.role }, 'started');
}

await main();
