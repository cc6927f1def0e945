/**
 * Accept and Content-Type values and the other headers a client may send: every representation
 * the server offers (JSON, YAML, protobuf, Table, PartialObjectMetadata), lists with q values, and
 * garbage; content types that name each patch type, match or do not match the body, or are
 * malformed; and headers the server reads or should ignore (bearer tokens, impersonation, encoding).
 * Values stay within what an HTTP client may send (no CR, LF or NUL).
 */
import fc from 'fast-check';

export const json = 'application/json';
export const yaml = 'application/yaml';
export const protobuf = 'application/vnd.kubernetes.protobuf';

export const patchContentTypes = {
  'json-patch': 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export type PatchKind = keyof typeof patchContentTypes;

const garbageMediaTypes = [
  '',
  'text/plain',
  'text/html',
  'application/xml',
  '*/*;q=0',
  'application',
  '/',
  'application/json;q=abc',
  'application/json; charset=latin1',
  'application/cbor',
  'application/apply-patch+cbor',
  `application/${'x'.repeat(2048)}`,
  'Āx/ÿ',
  ';;;',
  'application/json;as=Table',
  'multipart/form-data; boundary=x',
];

export const accept: fc.Arbitrary<string | undefined> = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 3 },
  { arbitrary: fc.constantFrom(json, yaml, protobuf, '*/*', 'application/*', `${protobuf}, ${json}`, `${json};q=0.5, ${yaml}`), weight: 6 },
  {
    arbitrary: fc.constantFrom(
      `${json};as=Table;v=v1;g=meta.k8s.io`,
      `${yaml};as=Table;v=v1;g=meta.k8s.io`,
      `${protobuf};as=Table;v=v1;g=meta.k8s.io`,
      `${json};as=Table;v=v1beta1;g=meta.k8s.io, ${json}`,
      `${json};as=PartialObjectMetadata;v=v1;g=meta.k8s.io`,
      `${protobuf};as=PartialObjectMetadataList;v=v1;g=meta.k8s.io`,
      `${json};as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io`,
      `${json};as=Table;v=v9;g=bogus`,
      `${json};as=Bogus;v=v1;g=meta.k8s.io`,
      `${json};stream=watch`,
      `${protobuf};stream=watch`,
    ),
    weight: 4,
  },
  { arbitrary: fc.constantFrom(...garbageMediaTypes), weight: 2 },
);

/** A Content-Type for a body of `natural` type: mostly that one, sometimes another or garbage. */
export function contentTypeFor(natural: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { arbitrary: fc.constant(natural), weight: 12 },
    { arbitrary: fc.constantFrom(`${natural}; charset=utf-8`, natural.toUpperCase()), weight: 1 },
    { arbitrary: fc.constantFrom(json, yaml, protobuf, ...Object.values(patchContentTypes)), weight: 1 },
    { arbitrary: fc.constantFrom(undefined, ...garbageMediaTypes), weight: 1 },
  );
}

/** Headers besides Accept and Content-Type. */
export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc
  .array(
    fc.constantFrom<[string, string]>(
      ['user-agent', 'fuzz/1.0'],
      ['user-agent', 'Āx ÿ'],
      ['authorization', 'Bearer bogus'],
      ['authorization', 'Basic Zm9vOmJhcg=='],
      ['authorization', 'Bearer '],
      ['impersonate-user', 'someone'],
      ['impersonate-group', 'system:masters'],
      ['impersonate-uid', 'x'],
      ['audit-id', 'Āx'],
      ['audit-id', 'x'.repeat(2048)],
      ['content-encoding', 'gzip'],
      ['accept-encoding', 'gzip'],
      ['x-remote-user', 'admin'],
      ['x-remote-group', 'system:masters'],
      ['expect', '100-continue'],
      ['if-match', '*'],
      ['x-fuzz', 'x'.repeat(8192)],
    ),
    { maxLength: 2 },
  )
  .map((pairs) => Object.fromEntries(pairs));
