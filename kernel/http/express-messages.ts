import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

/** The classes a Node HTTP server builds each request and answer from (its `IncomingMessage` and `ServerResponse` options). */
export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/**
 * Request and answer classes for an express app, born with the app's own prototypes, which become
 * `app.request` and `app.response`.
 *
 * Why: express hands every request the app's prototypes with `Object.setPrototypeOf` (its
 * `app.handle`). On V8 that gives each request and answer a map of its own, held from the old
 * generation, so the young generation's collections kept every request's objects alive after its
 * answer and promoted them: 2 to 4 MB per scavenge, pauses of 4 to 7 ms, and the workers' p99
 * (bench/PROFILE.md, "Workers"). Born with those prototypes, express's call changes nothing and V8
 * returns early.
 */
export function expressMessages(app: Express): MessageClasses {
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {}
  const classes = { IncomingMessage: AppRequest, ServerResponse: AppResponse as typeof ServerResponse };
  expressMessagesFor(app, classes);
  return classes;
}

/**
 * The classes a server already builds its requests from, handed to another express app that
 * takes over its requests (a gateway swapping supergraphs, server/edge-switch.ts): the server
 * cannot change its classes, so they take that app's prototypes. Requests still in flight on the
 * app before then see the new one as `req.app`; both are built by the same code with the same
 * settings, which is all express reads there.
 */
export function expressMessagesFor(app: Express, classes: MessageClasses): void {
  adopt(classes.IncomingMessage.prototype, app.request, app);
  adopt(classes.ServerResponse.prototype, app.response, app);
  app.request = classes.IncomingMessage.prototype as Express['request'];
  app.response = classes.ServerResponse.prototype as Express['response'];
}

/** `prototype` takes the place of express's per-app one: express's methods below it, `app` on it. */
function adopt(prototype: object, appPrototype: object, app: Express): void {
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(appPrototype));
  Object.defineProperty(prototype, 'app', { configurable: true, enumerable: true, writable: true, value: app });
}
