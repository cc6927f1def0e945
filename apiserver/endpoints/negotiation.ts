/**
 * Content negotiation: which representation a response takes (from Accept) and which decoder a
 * request body needs (from Content-Type). Unsupported choices are 406 and 415 Status errors.
 */
import { notAcceptable, unsupportedMediaType } from '../../shared/api/errors.ts';

export type Format = 'json' | 'yaml' | 'protobuf';

export type Representation =
  | { kind: 'object'; format: Format }
  | { kind: 'table'; format: 'json' | 'yaml'; version: 'v1' | 'v1beta1' }
  | { kind: 'metadata'; format: Format; version: 'v1' | 'v1beta1' };

interface MediaRange {
  type: string;
  subtype: string;
  params: Map<string, string>;
  q: number;
}

export const acceptedMediaTypes = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'] as const;

export function parseMediaType(text: string): MediaRange | null {
  const [full = '', ...paramTexts] = text.split(';');
  const [type, subtype] = full.trim().toLowerCase().split('/');
  if (!type || !subtype) return null;
  const params = new Map<string, string>();
  let q = 1;
  for (const p of paramTexts) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const key = p.slice(0, eq).trim().toLowerCase();
    const value = p
      .slice(eq + 1)
      .trim()
      .replace(/^"|"$/g, '');
    if (key === 'q') q = Number(value) || 0;
    else params.set(key, value);
  }
  return { type, subtype, params, q };
}

/** Any type, then any subtype of a type, then one type and subtype: more specific ranges rank higher. */
function specificity(range: MediaRange): number {
  if (range.type === '*') return 0;
  return range.subtype === '*' ? 1 : 2;
}

function formatOf(range: MediaRange): Format | null {
  if (range.type === '*' && range.subtype === '*') return 'json';
  if (range.type !== 'application') return null;
  if (range.subtype === 'json' || range.subtype === '*') return 'json';
  if (range.subtype === 'yaml') return 'yaml';
  if (range.subtype === 'vnd.kubernetes.protobuf') return 'protobuf';
  return null;
}

/**
 * A header's answer, worked out once: clients send one Accept or Content-Type header or a few,
 * request after request, and parsing (and for Accept sorting) its media ranges each time cost more
 * than a lookup. Bounded, as the header is the client's to choose; an answer that throws (406, 415)
 * is not kept.
 */
function memoizedByHeader<T>(answer: (header: string) => T): (header: string) => T {
  const known = new Map<string, T>();
  return (header) => {
    let found = known.get(header);
    if (found === undefined) {
      found = answer(header);
      if (known.size >= memoizedHeadersMax) known.clear();
      known.set(header, found);
    }
    return found;
  };
}

const memoizedHeadersMax = 256;

const jsonObject: Representation = Object.freeze({ kind: 'object', format: 'json' });

/** The representation for an Accept header, tables allowed and not; shared answers, so frozen. */
const negotiatedWithTables = memoizedByHeader((accept) => Object.freeze(negotiateAnew(accept, true)));
const negotiatedWithoutTables = memoizedByHeader((accept) => Object.freeze(negotiateAnew(accept, false)));

/** Picks the representation for a response, honouring order and q values; 406 when none fits. */
export function negotiate(accept: string | undefined, allowTable: boolean): Representation {
  if (!accept) return jsonObject;
  return allowTable ? negotiatedWithTables(accept) : negotiatedWithoutTables(accept);
}

function negotiateAnew(accept: string, allowTable: boolean): Representation {
  if (accept.trim() === '') return jsonObject;
  const ranges = accept
    .split(',')
    .map(parseMediaType)
    .filter((r): r is MediaRange => r !== null && r.q > 0)
    .map((r, index) => ({ r, index }))
    // Like upstream (goautoneg): higher q first, then the more specific range, then the client's order.
    .sort((a, b) => b.r.q - a.r.q || specificity(b.r) - specificity(a.r) || a.index - b.index)
    .map(({ r }) => r);
  for (const range of ranges) {
    const format = formatOf(range);
    if (!format) continue;
    const as = range.params.get('as');
    if (!as) return { kind: 'object', format };
    const group = range.params.get('g');
    const version = range.params.get('v');
    if (group !== 'meta.k8s.io' || (version !== 'v1' && version !== 'v1beta1')) continue;
    // Tables have no protobuf form upstream.
    if (as === 'Table' && allowTable && format !== 'protobuf') return { kind: 'table', format, version };
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { kind: 'metadata', format, version };
  }
  throw notAcceptable(acceptedMediaTypes);
}

export type BodyFormat = Format;
export type PatchType = 'json-patch' | 'merge-patch' | 'strategic-merge-patch' | 'apply-patch';

const patchTypes: Record<string, PatchType> = {
  'application/json-patch+json': 'json-patch',
  'application/merge-patch+json': 'merge-patch',
  'application/strategic-merge-patch+json': 'strategic-merge-patch',
  'application/apply-patch+yaml': 'apply-patch',
};

/** The decoder for a POST/PUT body; 415 for anything but JSON, YAML and protobuf. */
export function bodyFormat(contentType: string | undefined): BodyFormat {
  return contentType ? bodyFormatOf(contentType) : 'json';
}

const bodyFormatOf = memoizedByHeader((contentType): BodyFormat => {
  const range = parseMediaType(contentType);
  const essence = range ? `${range.type}/${range.subtype}` : '';
  if (essence === 'application/json') return 'json';
  if (essence === 'application/yaml') return 'yaml';
  if (essence === 'application/vnd.kubernetes.protobuf') return 'protobuf';
  throw unsupportedMediaType(acceptedMediaTypes);
});

/** The patch type of a PATCH body; 415 with the supported patch types otherwise. */
export function patchType(contentType: string | undefined, supported: readonly PatchType[]): PatchType {
  const range = parseMediaType(contentType ?? '');
  const essence = range ? `${range.type}/${range.subtype}` : '';
  const type = patchTypes[essence];
  const offered = Object.entries(patchTypes)
    .filter(([, t]) => supported.includes(t))
    .map(([media]) => media);
  if (!type || !supported.includes(type)) throw unsupportedMediaType(offered);
  return type;
}
