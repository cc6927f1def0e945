/**
 * Values and keys a hostile client puts where a schema expects something else, each as the raw
 * JSON text it is sent as (see wire-text.ts holes): nulls, wrong types, numbers beyond every Go
 * integer and float (`1e30` in a time field, `1e400`), strings with controls, lone surrogates,
 * non-ASCII and raw non-UTF-8 bytes, keys such as `Āx`, `__proto__` or a raw `\xff`, and nesting
 * up to beyond Go's encoding/json limit of 10,000 levels. Deep values are built as text in a loop:
 * neither the generator nor JSON.stringify recurses over them.
 */
import fc from 'fast-check';
import { rawByte } from '../wire-text.ts';

/** Go's encoding/json refuses nesting deeper than this (`exceeded max depth`). */
export const goJsonMaxDepth = 10_000;

export const nestingDepths = [2, 64, 999, 1_000, 1_001, goJsonMaxDepth - 1, goJsonMaxDepth, goJsonMaxDepth + 1, 100_000] as const;

/** `depth` levels of objects or arrays around `leaf`, as JSON text. */
export function nestedJson(depth: number, shape: 'object' | 'array', leaf = 'null'): string {
  return shape === 'object' ? `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}` : `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
}

/** Keys that break naive code: non-ASCII (a Warning header names unknown fields), raw bytes, prototype names. */
export const hostileKeys: readonly string[] = [
  'Āx',
  `${rawByte(0xff)}x`,
  `a${rawByte(0xc3)}`,
  '',
  'a b',
  'a\u0000b',
  'a\nb',
  'a"b',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '$patch',
  '$retainKeys',
  '\ud800',
  '😀',
  'x'.repeat(254),
  'x'.repeat(64 * 1024),
  'example.com/' + 'k'.repeat(63),
  '../..',
];

const hostileKey = fc.constantFrom(...hostileKeys);

/** Scalars as JSON text: nulls, booleans, extreme and non-Go numbers, odd strings. */
const hostileScalar: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constant('null'), weight: 6 },
  fc.constantFrom(
    'true',
    'false',
    '0',
    '-1',
    '1.5',
    '-0',
    '1e30',
    '-1e30',
    '1e308',
    '1e400',
    '-1e400',
    '9007199254740993',
    '18446744073709551616',
    '-9223372036854775809',
    '0.0000001',
    '1E-400',
    '123456789012345678901234567890',
  ),
  fc.constantFrom(
    '""',
    '" "',
    '"\\u0000"',
    '"\\ud800"',
    '"Āx"',
    '"😀"',
    '"1e30"',
    '"null"',
    '"2006-01-02T15:04:05Z"',
    '"9999-12-31T23:59:59.999999999Z"',
    '"0000-00-00T00:00:00Z"',
    '"-1"',
    '"true"',
    '"\\n\\r\\t"',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.constantFrom(0x00, 0x7f, 0x80, 0xc0, 0xfe, 0xff).map((b) => `"x${rawByte(b)}y"`),
  fc.constantFrom(1_000, 65_536, 1_048_576).map((n) => JSON.stringify('x'.repeat(n))),
);

/** Containers as JSON text: empty ones, ones holding nulls, hostile keys, deep nesting. */
const hostileContainer: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('{}', '[]', '[null]', '[[]]', '[{}]', '{"a":null}', '{"":""}', '[1,"a",null,{}]'),
  fc.tuple(hostileKey, hostileScalar).map(([k, v]) => `{${JSON.stringify(k)}:${v}}`),
  fc.tuple(hostileKey, hostileScalar).map(([k, v]) => `[{${JSON.stringify(k)}:${v}}]`),
  fc.tuple(fc.constantFrom(...nestingDepths), fc.constantFrom('object' as const, 'array' as const)).map(([d, shape]) => nestedJson(d, shape)),
  fc.constantFrom(1_000, 10_000, 100_000).map((n) => `[${Array.from({ length: n }, () => 'null').join(',')}]`),
);

/** Any hostile value, as JSON text. */
export const hostileValue: fc.Arbitrary<string> = fc.oneof({ arbitrary: hostileScalar, weight: 3 }, { arbitrary: hostileContainer, weight: 2 });

export { hostileKey };
