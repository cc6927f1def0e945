/**
 * One whole fuzz request: protocol (HTTP/1.1 or HTTP/2), credentials (the admin client certificate
 * or none), method, target (a resource or non-resource path, possibly mutated, with a query),
 * Accept, Content-Type and other headers, and a body that fits the method. Watches are bounded:
 * one without `timeoutSeconds` gets `timeoutSeconds=1`, and the transport cuts every stream.
 */
import fc from 'fast-check';
import type { ServedResource } from '../served.ts';
import type { WireRequest } from '../transport.ts';
import { toHttp2Path, toRequestTarget } from '../wire-text.ts';
import { deleteBody, objectBody, patchBody, type Body } from './bodies.ts';
import { accept, contentTypeFor, extraHeaders } from './media.ts';
import { fuzzNamespaces, mutatedPath, nonResourcePath, resourceTarget, type ResourceTarget } from './paths.ts';
import { queryParams, queryString, type QueryParam } from './query.ts';
import { queryBool } from '../../../shared/go/parse-bool.ts';

/** A request and how it was made, for reports. */
export interface FuzzCase extends WireRequest {
  note: string;
  /** The query as generated (the target may have been mutated around it). */
  query: readonly QueryParam[];
}

/** A watch the server may keep open: the query asks for one, or the path has the `/watch/` prefix. */
function isWatch(query: readonly QueryParam[], watchPath: boolean): boolean {
  return watchPath || query.some((p) => !p.raw && p.key === 'watch' && queryBool(p.value));
}

function bounded(query: readonly QueryParam[], watchPath: boolean): QueryParam[] {
  const out = [...query];
  if (isWatch(query, watchPath) && !out.some((p) => p.key === 'timeoutSeconds')) out.push({ key: 'timeoutSeconds', value: '1', raw: false });
  return out;
}

/** Header values as an HTTP/1.1 client sends them: characters above U+00FF as their UTF-8 bytes. */
function latin1Headers(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = /[^\u0000-\u00ff]/.test(v) ? Buffer.from(v, 'utf8').toString('latin1') : v;
  return out;
}

interface Parts {
  method: string;
  path: string;
  pathNotes: string[];
  query: QueryParam[];
  body: (Body & { sentType: string | undefined }) | undefined;
  watchPath: boolean;
}

/** Method and body for a resource target. */
function methodAndBody(
  t: ResourceTarget,
): fc.Arbitrary<{ method: string; body: (Body & { sentType: string | undefined }) | undefined; extraQuery: QueryParam[] }> {
  const name = t.name ?? 'fuzz-a';
  const namespace = t.namespace ?? fuzzNamespaces[0];
  const withType = (b: Body): fc.Arbitrary<Body & { sentType: string | undefined }> => contentTypeFor(b.contentType).map((sentType) => ({ ...b, sentType }));
  return fc.oneof(
    { arbitrary: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'OPTIONS').map((method) => ({ method, body: undefined, extraQuery: [] })), weight: 6 },
    {
      arbitrary: objectBody(t.resource, name, namespace)
        .chain(withType)
        .map((body) => ({ method: 'POST', body, extraQuery: [] })),
      weight: 6,
    },
    {
      arbitrary: objectBody(t.resource, name, namespace)
        .chain(withType)
        .map((body) => ({ method: 'PUT', body, extraQuery: [] })),
      weight: 4,
    },
    {
      arbitrary: fc
        .tuple(
          patchBody(t.resource, name, namespace).chain((b) => withType(b).map((w) => ({ ...w, patch: b.patch }))),
          fc.boolean(),
        )
        .map(([body, manager]) => ({
          method: 'PATCH',
          body,
          // Apply needs a field manager; most applies name one so that they get past that check.
          extraQuery: body.patch === 'apply' && manager ? [{ key: 'fieldManager', value: 'fuzz', raw: false }] : [],
        })),
      weight: 8,
    },
    { arbitrary: deleteBody.chain((b) => (b ? withType(b) : fc.constant(undefined))).map((body) => ({ method: 'DELETE', body, extraQuery: [] })), weight: 3 },
    { arbitrary: fc.constantFrom('TRACE', 'CONNECT', 'BOGUS', 'get', 'PROPFIND').map((method) => ({ method, body: undefined, extraQuery: [] })), weight: 1 },
  );
}

function resourceParts(served: readonly ServedResource[]): fc.Arbitrary<Parts> {
  return resourceTarget(served).chain((t) =>
    fc
      .tuple(
        methodAndBody(t),
        queryParams,
        fc.oneof({ arbitrary: fc.constant({ path: t.path, notes: [] as string[] }), weight: 5 }, { arbitrary: mutatedPath(t.path), weight: 1 }),
      )
      .map(([mb, query, mutated]): Parts => ({
        method: mb.method,
        path: mutated.path,
        pathNotes: mutated.notes,
        query: [...query, ...mb.extraQuery],
        body: mb.body,
        watchPath: t.watchPath,
      })),
  );
}

function nonResourceParts(served: readonly ServedResource[]): fc.Arbitrary<Parts> {
  return fc
    .tuple(nonResourcePath(served), fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'), queryParams, fc.boolean())
    .chain(([path, method, query, mutate]) =>
      (mutate ? mutatedPath(path) : fc.constant({ path, notes: [] as string[] })).map((m): Parts => ({
        method,
        path: m.path,
        pathNotes: m.notes,
        query,
        body:
          method === 'GET' || method === 'HEAD'
            ? undefined
            : { body: Buffer.from('{}'), contentType: 'application/json', sentType: 'application/json', note: '{}' },
        watchPath: false,
      })),
    );
}

export function requestArbitrary(served: readonly ServedResource[]): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      parts: fc.oneof({ arbitrary: resourceParts(served), weight: 9 }, { arbitrary: nonResourceParts(served), weight: 1 }),
      protocol: fc.constantFrom('http1' as const, 'http2' as const),
      credentials: fc.oneof({ arbitrary: fc.constant('admin' as const), weight: 6 }, { arbitrary: fc.constant('none' as const), weight: 1 }),
      accept,
      extra: extraHeaders,
    })
    .map(({ parts, protocol, credentials, accept: acceptValue, extra }): FuzzCase => {
      const query = bounded(parts.query, parts.watchPath);
      const text = `${parts.path}${queryString(query)}`;
      const headers: Record<string, string> = { ...extra };
      if (acceptValue !== undefined) headers.accept = acceptValue;
      if (parts.body?.sentType !== undefined) headers['content-type'] = parts.body.sentType;
      const notes = [...parts.pathNotes.map((n) => `path: ${n}`), ...(parts.body ? [`body: ${parts.body.note}`] : [])];
      return {
        protocol,
        credentials,
        method: parts.method,
        target: protocol === 'http2' ? toHttp2Path(text) : toRequestTarget(text),
        headers: latin1Headers(headers),
        body: parts.body?.body,
        note: notes.join(' | '),
        query,
      };
    });
}
