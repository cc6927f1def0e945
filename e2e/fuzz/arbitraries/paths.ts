/**
 * Request paths: every URL shape of every served resource (collection, object, subresource,
 * all namespaces, the legacy `/watch/` prefix), the non-resource endpoints, and mutations of any
 * of them that URL parsers and routers trip over: `//`, `%zz`, `\`, dot segments, encoded slashes,
 * an authority in the path (`//a:99999/`), absolute URLs (`http://[/`), very long segments,
 * non-ASCII characters as UTF-8 and as raw bytes.
 *
 * Names and namespaces come from pools that never include the fixture namespaces (`keep-*`), so a
 * valid write of the fuzzer can never touch the objects whose integrity the run checks.
 */
import fc from 'fast-check';
import { groupVersionPath, type ServedResource } from '../served.ts';
import { rawByte } from '../wire-text.ts';

/** Namespaces the fuzzer writes in; the fixtures live elsewhere (see fixtures.ts). */
export const fuzzNamespaces = ['fuzz', 'default'] as const;

export interface ResourceTarget {
  path: string;
  resource: ServedResource;
  /** The object's name, when the path names one. */
  name: string | undefined;
  namespace: string | undefined;
  subresource: string | undefined;
  /** The path goes through the legacy `/watch/` prefix. */
  watchPath: boolean;
}

const hostileSegments = [
  '',
  '.',
  '..',
  '%2e%2e',
  'A',
  'a_b',
  'a.b',
  '-a',
  'a-',
  '%2F',
  'a%2Fb',
  '%00',
  '%zz',
  'ä',
  '😀',
  rawByte(0xff),
  'x'.repeat(64),
  'x'.repeat(254),
  'x'.repeat(4096),
];

const name = fc.oneof(
  { arbitrary: fc.constantFrom('fuzz-a', 'fuzz-b', 'fuzz-c'), weight: 6 },
  { arbitrary: fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,14}[a-z0-9])?$/).map((s) => `fz${s}`), weight: 2 },
  { arbitrary: fc.constantFrom(...hostileSegments), weight: 2 },
);

const namespace = fc.oneof(
  { arbitrary: fc.constantFrom(...fuzzNamespaces), weight: 8 },
  { arbitrary: fc.constantFrom('nope', 'kube-system', ...hostileSegments), weight: 2 },
);

function subresourceOf(r: ServedResource): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 6 },
    { arbitrary: r.subresources.length > 0 ? fc.constantFrom(...r.subresources) : fc.constant(undefined), weight: 3 },
    { arbitrary: fc.constantFrom('status', 'scale', 'exec', 'log', 'proxy', 'bogus', ''), weight: 1 },
  );
}

/** One URL of one served resource. */
export function resourceTarget(served: readonly ServedResource[]): fc.Arbitrary<ResourceTarget> {
  return fc.constantFrom(...served).chain((resource) =>
    fc
      .record({
        shape: fc.constantFrom('collection', 'object', 'object', 'object', 'all-namespaces', 'watch'),
        name,
        namespace,
        subresource: subresourceOf(resource),
      })
      .map(({ shape, name: n, namespace: ns, subresource }): ResourceTarget => {
        const gv = groupVersionPath(resource);
        const scoped = (prefix: string): string =>
          resource.namespaced && shape !== 'all-namespaces' ? `${prefix}/namespaces/${ns}/${resource.resource}` : `${prefix}/${resource.resource}`;
        const objectShape = shape === 'object';
        const base = shape === 'watch' ? scoped(`${gv}/watch`) : scoped(gv);
        const path = objectShape ? `${base}/${n}${subresource !== undefined ? `/${subresource}` : ''}` : base;
        return {
          path,
          resource,
          name: objectShape ? n : undefined,
          namespace: resource.namespaced && shape !== 'all-namespaces' ? ns : undefined,
          subresource: objectShape ? subresource : undefined,
          watchPath: shape === 'watch',
        };
      }),
  );
}

/** Endpoints outside the resource tree. */
export function nonResourcePath(served: readonly ServedResource[]): fc.Arbitrary<string> {
  const groupVersions = [...new Set(served.map((r) => groupVersionPath(r)))];
  const groups = [...new Set(served.filter((r) => r.group).map((r) => `/apis/${r.group}`))];
  return fc.oneof(
    {
      arbitrary: fc.constantFrom(
        '/',
        '/api',
        '/api/',
        '/apis',
        '/apis/',
        '/version',
        '/version/',
        '/livez',
        '/readyz',
        '/healthz',
        '/livez/ping',
        '/readyz/etcd',
        '/livez/bogus',
        '/readyz/shutdown',
        '/metrics',
        '/openapi/v3',
        '/openapi/v3/api/v1',
        '/openapi/v3/bogus',
        '/logs',
        '/debug/pprof',
        '/favicon.ico',
        '/api/v2',
        '/apis/bogus',
        '/apis/bogus/v1',
      ),
      weight: 10,
    },
    { arbitrary: fc.constantFrom(...groupVersions, ...groups), weight: 8 },
    // OpenAPI v2 is large: asked for less often.
    { arbitrary: fc.constant('/openapi/v2'), weight: 1 },
  );
}

/** One mutation of a path, with what it did. */
type PathMutation = (path: string, at: number) => { path: string; note: string };

const mutations: Record<string, PathMutation> = {
  doubleSlash: (p, at) => {
    const i = slashAt(p, at);
    return { path: `${p.slice(0, i)}/${p.slice(i)}`, note: '// inserted' };
  },
  leadingAuthority: (p) => ({ path: `//a:99999${p}`, note: 'authority //a:99999 before the path' }),
  leadingDoubleSlash: (p) => ({ path: `/${p}`, note: 'leading //' }),
  badEscape: (p, at) => {
    const i = slashAt(p, at);
    return { path: `${p.slice(0, i)}/%zz${p.slice(i)}`, note: '%zz segment' };
  },
  truncatedEscape: (p) => ({ path: `${p}%`, note: 'trailing %' }),
  backslash: (p, at) => {
    const i = slashAt(p, at);
    return { path: `${p.slice(0, i)}\\${p.slice(i + 1)}`, note: '/ replaced by \\' };
  },
  dotSegments: (p, at) => {
    const i = slashAt(p, at);
    return { path: `${p.slice(0, i)}/./..${p.slice(i)}`, note: '/./.. inserted' };
  },
  encodedSlash: (p, at) => {
    const i = slashAt(p, at);
    return i > 0 ? { path: `${p.slice(0, i)}%2F${p.slice(i + 1)}`, note: '/ encoded as %2F' } : { path: p, note: 'no slash to encode' };
  },
  percentEncodeAll: (p) => ({ path: p.replace(/[a-z]/g, (c) => `%${c.charCodeAt(0).toString(16)}`), note: 'letters percent-encoded' }),
  trailingSlash: (p) => ({ path: `${p}/`, note: 'trailing /' }),
  absoluteHttp: (p) => ({ path: `http://x${p}`, note: 'absolute http URL' }),
  absoluteHttpsBadPort: (p) => ({ path: `https://a:99999${p}`, note: 'absolute URL, port 99999' }),
  brokenIpv6: () => ({ path: 'http://[/', note: 'http://[/' }),
  brokenIpv6Path: (p) => ({ path: `//[::1${p}`, note: '//[::1 before the path' }),
  unicodeSegment: (p) => ({ path: `${p}/Āx😀`, note: 'non-ASCII segment (UTF-8)' }),
  rawByteSegment: (p) => ({ path: `${p}/${rawByte(0xff)}${rawByte(0xc3)}`, note: 'raw bytes 0xff 0xc3' }),
  longSegment: (p) => ({ path: `${p}/${'x'.repeat(12_000)}`, note: '12,000-character segment' }),
  veryLongSegment: (p) => ({ path: `${p}/${'x'.repeat(40_000)}`, note: '40,000-character segment' }),
  nulByte: (p) => ({ path: `${p}%00`, note: '%00' }),
  asterisk: () => ({ path: '*', note: 'asterisk form' }),
  noLeadingSlash: (p) => ({ path: p.slice(1), note: 'no leading /' }),
  hashFragment: (p) => ({ path: `${p}#frag`, note: 'fragment' }),
};

/** The index of the `at`-th slash of `path` (modulo their number). */
function slashAt(path: string, at: number): number {
  const slashes: number[] = [];
  for (let i = 0; i < path.length; i++) if (path[i] === '/') slashes.push(i);
  return slashes.length === 0 ? 0 : slashes[at % slashes.length]!;
}

/** Zero, one or two mutations of `path`. */
export function mutatedPath(path: string): fc.Arbitrary<{ path: string; notes: string[] }> {
  const names = Object.keys(mutations);
  return fc.array(fc.tuple(fc.constantFrom(...names), fc.nat(16)), { maxLength: 2 }).map((chosen) => {
    let p = path;
    const notes: string[] = [];
    for (const [m, at] of chosen) {
      const out = mutations[m]!(p, at);
      p = out.path;
      notes.push(out.note);
    }
    return { path: p, notes };
  });
}
