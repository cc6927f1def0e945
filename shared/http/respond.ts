/**
 * Plain-text answers as Go's net/http writes them (http.Error: `text/plain; charset=utf-8`,
 * `X-Content-Type-Options: nosniff`), and the bodies clients of the components' own endpoints (the
 * node agent's, the controller manager's) see for the common refusals.
 */
import type { ServerResponse } from 'node:http';

export function respondText(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
  res.end(body);
}

export function respondJson(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
}

/** Go's http.NotFound, what a path nothing serves gets. */
export function notFound(res: ServerResponse): void {
  respondText(res, 404, '404 page not found\n');
}

/** go-restful's answer to a method its route does not take. */
export function methodNotAllowed(res: ServerResponse): void {
  respondText(res, 405, '405: Method Not Allowed');
}
