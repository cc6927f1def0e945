/**
 * The HTTP side of OpenAPI: /openapi/v2, /openapi/v3 and /openapi/v3/<key> answered as
 * kube-apiserver's OpenAPI handlers answer them (content negotiation, ETags, hash redirects).
 */
import { notAcceptable as notAcceptableError } from '../../../shared/api/errors.ts';
import type { Registry } from '../../registry/registry.ts';
import { openApiHash, openApiJson, openApiV2Document, openApiV2ProtobufOf, openApiV3Document, openApiV3Index, v3Url } from './documents.ts';

export interface OpenApiResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

const v2Protobuf = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const v2Choices = [
  { subtype: 'json', contentType: 'application/json' },
  { subtype: 'com.github.proto-openapi.spec.v2@v1.0+protobuf', contentType: v2Protobuf },
  { subtype: 'com.github.proto-openapi.spec.v2.v1.0+protobuf', contentType: v2Protobuf },
] as const;

interface AcceptClause {
  type: string;
  subtype: string;
  q: number;
}

/** Accept clauses by preference: q first, then the more specific range, as goautoneg orders them. */
function acceptClauses(accept: string | undefined): AcceptClause[] {
  const text = accept && accept.trim() !== '' ? accept : '*/*';
  const clauses: AcceptClause[] = [];
  for (const part of text.split(',')) {
    const [range = '', ...params] = part.split(';');
    const [type = '', subtype = '*'] = range.trim().toLowerCase().split('/');
    let q = 1;
    for (const param of params) {
      const [k, v] = param.split('=');
      if (k?.trim() === 'q') q = Number(v) || 0;
    }
    if (type && q > 0) clauses.push({ type, subtype: subtype.trim(), q });
  }
  const specificity = (c: AcceptClause): number => (c.type === '*' ? 0 : c.subtype === '*' ? 1 : 2);
  return clauses.sort((a, b) => b.q - a.q || specificity(b) - specificity(a));
}

function pickV2(accept: string | undefined): (typeof v2Choices)[number] | undefined {
  for (const clause of acceptClauses(accept)) {
    if (clause.type !== 'application' && clause.type !== '*') continue;
    const choice = v2Choices.find((c) => clause.subtype === '*' || clause.subtype === c.subtype);
    if (choice) return choice;
  }
  return undefined;
}

/** JSON is the only v3 form corral offers; clients that accept only protobuf get a 406. */
function acceptsV3Json(accept: string | undefined): boolean {
  return acceptClauses(accept).some((c) => (c.type === 'application' || c.type === '*') && (c.subtype === 'json' || c.subtype === '*'));
}

const quoted = (hash: string): string => `"${hash}"`;

function withETag(
  status: number,
  body: string | Buffer,
  contentType: string,
  hash: string,
  ifNoneMatch: string | undefined,
  extra: Record<string, string> = {},
): OpenApiResponse {
  const headers = { 'content-type': contentType, etag: quoted(hash), vary: 'Accept', ...extra };
  const tags = (ifNoneMatch ?? '').split(',').map((t) => t.trim().replace(/^W\//, ''));
  if (tags.includes(quoted(hash)) || tags.includes('*')) return { status: 304, headers, body: '' };
  return { status, headers, body };
}

/**
 * Answers /openapi/v2, /openapi/v3 and /openapi/v3/<key> as kube-apiserver's OpenAPI handlers do:
 * ETag (the document hash) with If-None-Match, a 301 to the current URL when `hash` names another
 * document, long caching when it names this one, 406 when no offered form is acceptable. Returns
 * undefined for other paths and for keys the registry does not serve (the caller answers 404).
 */
export function serveOpenApi(
  registry: Registry,
  url: URL,
  request: { accept?: string | undefined; ifNoneMatch?: string | undefined },
  now: Date = new Date(),
): OpenApiResponse | undefined {
  const path = url.pathname;
  // Upstream answers a bodiless 406 here; like every other failure of corral's, it is a Status.
  const refuse = (offered: readonly string[]): OpenApiResponse => ({
    status: 406,
    headers: { 'content-type': 'application/json', vary: 'Accept' },
    body: JSON.stringify(notAcceptableError(offered).status),
  });
  if (path === '/openapi/v2') {
    const choice = pickV2(request.accept);
    if (!choice) return refuse([...new Set(v2Choices.map((c) => c.contentType))]);
    const doc = openApiV2Document(registry);
    const body = choice.contentType === 'application/json' ? openApiJson(doc) : openApiV2ProtobufOf(registry);
    return withETag(200, body, choice.contentType, openApiHash(doc), request.ifNoneMatch);
  }
  if (path === '/openapi/v3') {
    const index = openApiV3Index(registry);
    return withETag(200, openApiJson(index), 'application/json', openApiHash(index), request.ifNoneMatch);
  }
  if (!path.startsWith('/openapi/v3/')) return undefined;
  const key = path.slice('/openapi/v3/'.length);
  const doc = openApiV3Document(registry, key);
  if (!doc) return undefined;
  if (!acceptsV3Json(request.accept)) return refuse(['application/json']);
  const hash = openApiHash(doc);
  const asked = url.searchParams.get('hash');
  if (asked && asked !== hash) {
    return { status: 301, headers: { location: v3Url(key, hash), 'content-type': 'text/html; charset=utf-8', vary: 'Accept' }, body: '' };
  }
  const cacheHeaders: Record<string, string> = asked
    ? { 'cache-control': 'public, immutable', expires: new Date(now.getTime() + 365 * 24 * 3600 * 1000).toUTCString() }
    : {};
  return withETag(200, openApiJson(doc), 'application/json', hash, request.ifNoneMatch, cacheHeaders);
}
