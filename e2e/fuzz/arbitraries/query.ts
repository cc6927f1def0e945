/**
 * Query strings: every parameter kube-apiserver reads (resourceVersion, limit, continue, selectors,
 * watch options, dryRun, fieldValidation, fieldManager, force, deletion options, pretty,
 * includeObject ...) with valid, boundary and malformed values (resourceVersions past uint64, 400
 * digits, negative limits, broken selectors), repeated keys, unknown keys, and raw text that is not
 * valid percent-encoding.
 */
import fc from 'fast-check';

export interface QueryParam {
  key: string;
  value: string;
  /** Sent as is, not percent-encoded (`%zz`). */
  raw: boolean;
}

const hugeDigits = '1'.repeat(400);

/** The largest uint64, which upstream accepts as a resourceVersion (and waits for). */
export const maxUint64 = 18446744073709551615n;

const values: Record<string, readonly string[]> = {
  resourceVersion: [
    '',
    '0',
    '1',
    '2',
    '100',
    '999999',
    '9007199254740993',
    '18446744073709551616',
    hugeDigits,
    '-1',
    'abc',
    '1.5',
    ' 1',
    '0x10',
    '+1',
    '１',
    '1e3',
  ],
  resourceVersionMatch: ['NotOlderThan', 'Exact', 'bogus', ''],
  limit: ['0', '1', '2', '-1', '500', 'abc', '1e3', '9999999999999999999', ''],
  continue: [
    '',
    'bogus',
    'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiYSJ9',
    'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIuLi8uLiJ9',
    'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MWU0MDAsInN0YXJ0IjpudWxsfQ',
    'bnVsbA',
    '////',
  ],
  labelSelector: [
    'a=b',
    'a in (b,c)',
    '!a',
    'a',
    'a,',
    '=',
    'a==b==c',
    '(',
    'a notin ()',
    'a!=b',
    `a=${'x'.repeat(64)}`,
    'Āx=1',
    `k=${'v,'.repeat(5000)}`,
    'a in (',
    'a>1',
    'a<b',
    'x/y/z=1',
  ],
  fieldSelector: [
    'metadata.name=fuzz-a',
    'metadata.namespace!=fuzz',
    'spec.nodeName=a',
    'bogus=1',
    '=',
    ',',
    'metadata.name',
    'a==b',
    'Āx=1',
    'metadata.name=a,metadata.name=b',
    'involvedObject.kind=Pod',
    'type=Normal',
    'spec.signerName=a',
  ],
  watch: ['true', '1', 'false', '0', 'yes', '', 'TRUE', 't'],
  allowWatchBookmarks: ['true', 'false', 'x'],
  sendInitialEvents: ['true', 'false', 'x'],
  timeoutSeconds: ['0', '1', '-1', 'abc', '99999999999999999999', '1.5', ''],
  timeout: ['1s', '0s', '-1s', 'abc', '1h', '99999h', '1', ''],
  dryRun: ['All', 'all', '', 'bogus'],
  fieldValidation: ['Strict', 'Warn', 'Ignore', 'bogus', '', 'strict'],
  fieldManager: ['fuzz', '', 'x'.repeat(129), 'Āx', 'a\u0000b', 'kubectl'],
  force: ['true', 'false', 'bogus', ''],
  propagationPolicy: ['Foreground', 'Background', 'Orphan', 'bogus', ''],
  gracePeriodSeconds: ['0', '-1', 'abc', '1e30', '99999999999999999999'],
  orphanDependents: ['true', 'false', 'bogus'],
  pretty: ['true', 'false', '1', 'bogus'],
  includeObject: ['Object', 'Metadata', 'None', 'bogus'],
  exact: ['true'],
  export: ['true'],
  bogusParam: ['1'],
  '': ['', 'x'],
  Āx: ['1'],
};

const rawPieces = [
  '%zz',
  '%',
  '%0',
  '&&&',
  '=',
  'a=%',
  ';',
  '=%00',
  'watch=%74rue',
  'resourceVersion=%31',
  'limit=1&limit=2',
  'dryRun=All&dryRun=All',
  '+',
  `x=${'%41'.repeat(1000)}`,
];

const param: fc.Arbitrary<QueryParam> = fc.oneof(
  {
    arbitrary: fc.constantFrom(...Object.keys(values)).chain((key) => fc.constantFrom(...values[key]!).map((value) => ({ key, value, raw: false }))),
    weight: 10,
  },
  { arbitrary: fc.constantFrom(...rawPieces).map((piece) => ({ key: piece, value: '', raw: true })), weight: 1 },
);

/** Zero to five parameters. */
export const queryParams: fc.Arbitrary<QueryParam[]> = fc.array(param, { maxLength: 5 });

/** `?a=b&...`, or '' without parameters. */
export function queryString(params: readonly QueryParam[]): string {
  if (params.length === 0) return '';
  return `?${params.map((p) => (p.raw ? p.key : `${encodeURIComponent(p.key)}=${encodeURIComponent(p.value)}`)).join('&')}`;
}
