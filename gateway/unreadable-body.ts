import type { ErrorRequestHandler } from 'express';

/**
 * Malformed or oversized bodies get a GraphQL-shaped JSON error, never express's HTML error page
 * (which, outside NODE_ENV=production, shows the parser's stack trace and file paths).
 */
export const rejectUnreadableBody: ErrorRequestHandler = (error, _req, res, _next) => {
  const tooLarge = (error as { type?: string }).type === 'entity.too.large';
  res.status(tooLarge ? 413 : 400).json({
    errors: [{ message: tooLarge ? 'request body too large' : 'request body is not valid JSON', extensions: { code: tooLarge ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST' } }],
  });
};
