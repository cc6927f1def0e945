import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jsonUnmarshalMapError } from './json-errors.ts';

describe('jsonUnmarshalMapError', () => {
  const cases: [string, string | null][] = [
    ['{"a":{"b":[1,2.5e-3,true,false,null,"\\u00e9\\n"]}}', null],
    [' null ', null],
    ['', 'unexpected end of JSON input'],
    ['{"a":1', 'unexpected end of JSON input'],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['01', "invalid character '1' after top-level value"],
    ['-', "invalid character ' ' in numeric literal"],
    ['1.', "invalid character ' ' after decimal point in numeric literal"],
    ['1e+', "invalid character ' ' in exponent of numeric literal"],
    ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['"\u0001"', "invalid character '\\x01' in string literal"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['"x"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['12', 'json: cannot unmarshal number into Go value of type map[string]interface {}'],
    ['true', 'json: cannot unmarshal bool into Go value of type map[string]interface {}'],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${expected ?? 'ok'}`, () => {
      assert.equal(jsonUnmarshalMapError(Buffer.from(input)), expected);
    });
  }
});
