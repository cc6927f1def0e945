/**
 * The request target (the request line's URI, HTTP/2's `:path`) read as Go's net/http server
 * reads it: a target starting with `/` is always a path and its query, never a scheme-relative
 * URL; an absolute URL (`https://host:port/path?query`) contributes its path and query, whatever
 * its port says, as Go checks only that the port is digits; anything else, and a path with a `%`
 * that starts no escape, is a 400.
 *
 * The WHATWG URL parser, given `//a:99999/` or `/\a:99999/` against a base, reads a host and a
 * port from it and throws on the bad port; before this module that throw escaped the request and
 * killed the process. Here the server's own origin is prefixed to every path, so that the parser
 * can only read a path, a query and a fragment, none of which fails.
 */
import { badRequest } from '../../shared/api/errors.ts';

/** The origin every path is resolved against; it never reaches a client. */
const origin = 'https://corral';

/** `scheme://authority` then the rest; the authority's brackets (an IPv6 host) must close, its port be digits. */
const absoluteForm = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(?:\[[^\]/?#]*\]|[^[\]:/?#]*)(?::\d*)?([/?#].*)?$/s;

/** A `%` in a path that does not start an escape of two hex digits, which Go's URL parser refuses. */
const badEscape = /%(?![0-9A-Fa-f]{2})(.{0,2})/s;

/** The target as a URL (pathname, search, searchParams); a StatusError 400 when it is none. */
export function parseRequestTarget(target: string): URL {
  let pathAndQuery: string;
  if (target.startsWith('/')) {
    pathAndQuery = target;
  } else {
    const absolute = absoluteForm.exec(target);
    if (!absolute) throw badRequest(`invalid request target ${JSON.stringify(target)}`);
    const rest = absolute[1] ?? '';
    pathAndQuery = `${rest.startsWith('/') ? '' : '/'}${rest}`;
  }
  const path = pathAndQuery.split(/[?#]/, 1)[0] ?? '';
  const escape = badEscape.exec(path);
  if (escape) throw badRequest(`invalid URL escape ${JSON.stringify(`%${escape[1] ?? ''}`)}`);
  return new URL(`${origin}${pathAndQuery}`);
}
