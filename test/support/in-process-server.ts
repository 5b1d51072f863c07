/**
 * What an in-process system needs of the server (test/support/system.ts's `startInProcessSystem`),
 * imported once, when the first one starts: a suite that starts only built servers never loads the
 * server, Prisma and the stores under jest's loader. One module, so that the import is a single
 * one (jest's loader fails on two dynamic imports of overlapping graphs at once).
 */
export { pino } from 'pino';
export { createLogger } from '../../kernel/logger.js';
export { readSystemConfig } from '../../server/config.js';
export { startSystem } from '../../server/system.js';
