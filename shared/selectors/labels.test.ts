import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { SelectorParseError } from './errors.ts';
import { isEverything, labelSelectorFromObject, labelSelectorFromSet, labelSelectorString, matches, parseLabelSelector, requiresExactMatch } from './labels.ts';

const labelValueRule =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const namePartRule =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

function parseError(text: string): string {
  try {
    parseLabelSelector(text);
  } catch (e) {
    assert.ok(e instanceof SelectorParseError, `expected SelectorParseError for ${JSON.stringify(text)}`);
    return e.message;
  }
  assert.fail(`expected ${JSON.stringify(text)} to be rejected`);
}

const sel = (text: string, labels?: Record<string, string>): boolean => matches(parseLabelSelector(text), labels);

describe('parseLabelSelector', () => {
  it('parses every operator and keeps requirements sorted by key', () => {
    const s = parseLabelSelector('z=1, y==2,x!=3,w in (b,a),v notin (c),u,!t,s>4,r<5');
    assert.deepEqual(
      s.requirements.map((r) => [r.key, r.operator, r.values]),
      [
        ['r', 'lt', ['5']],
        ['s', 'gt', ['4']],
        ['t', '!', []],
        ['u', 'exists', []],
        ['v', 'notin', ['c']],
        ['w', 'in', ['a', 'b']],
        ['x', '!=', ['3']],
        ['y', '==', ['2']],
        ['z', '=', ['1']],
      ],
    );
  });

  it('accepts whitespace of all four kinds between tokens', () => {
    const s = parseLabelSelector(' x\t=\na ,\r y in ( b , c ) ');
    assert.equal(labelSelectorString(s), 'x=a,y in (b,c)');
  });

  it('treats the empty string as everything', () => {
    const s = parseLabelSelector('');
    assert.ok(isEverything(s));
    assert.ok(matches(s, undefined));
  });

  it('reads empty values: x=, x in (), x in (,a)', () => {
    assert.deepEqual(parseLabelSelector('x=').requirements[0]?.values, ['']);
    assert.deepEqual(parseLabelSelector('x in ()').requirements[0]?.values, ['']);
    assert.deepEqual(parseLabelSelector('x in (,a)').requirements[0]?.values, ['', 'a']);
    assert.deepEqual(parseLabelSelector('x in (a,,b)').requirements[0]?.values, ['', 'a', 'b']);
  });

  it('treats in and notin as identifiers where a key or value is expected', () => {
    const s = parseLabelSelector('in in (notin),notin=in');
    assert.deepEqual(
      s.requirements.map((r) => [r.key, r.operator, r.values]),
      [
        ['in', 'in', ['notin']],
        ['notin', '=', ['in']],
      ],
    );
  });

  it('reports grammar errors with upstream texts', () => {
    assert.equal(parseError('a b'), "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
    assert.equal(parseError('x!'), "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt");
    assert.equal(parseError('x in a'), "unable to parse requirement: found 'a' expected: '('");
    assert.equal(parseError('x in (a'), "unable to parse requirement: found '', expected: ',' or ')'");
    assert.equal(parseError('x in (a b)'), "unable to parse requirement: found 'b', expected: ',' or ')'");
    assert.equal(parseError('x in (a,='), "unable to parse requirement: found '=', expected: ',', or identifier");
    assert.equal(parseError('x in (='), "unable to parse requirement: found '=', expected: ',', ')' or identifier");
    assert.equal(parseError('x=(a)'), "unable to parse requirement: found '(', expected: identifier");
    assert.equal(parseError('!'), "unable to parse requirement: found '', expected: identifier");
    assert.equal(parseError(',x'), "found ',', expected: !, identifier, or 'end of string'");
    assert.equal(parseError('x,'), "found '', expected: identifier after ','");
    assert.equal(parseError('x=a b'), "found 'b', expected: ',' or 'end of string'");
    assert.equal(parseError('x==a==b'), "found '==', expected: ',' or 'end of string'");
    assert.equal(parseError('!x=a'), "found '=', expected: ',' or 'end of string'");
    // The requirement is validated before the token after it is looked at.
    assert.equal(parseError('x=a||y=b'), `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${labelValueRule}`);
  });

  it('reports an invalid key at the nil path upstream prints', () => {
    assert.equal(parseError('-x=a'), `unable to parse requirement: <nil>: Invalid value: "-x": ${namePartRule}`);
  });

  it('reports invalid values by index (after sorting) and key', () => {
    assert.equal(parseError('x in (a,-b)'), `unable to parse requirement: values[0][x]: Invalid value: "-b": ${labelValueRule}`);
    assert.equal(parseError('x=a"b'), `unable to parse requirement: values[0][x]: Invalid value: "a\\"b": ${labelValueRule}`);
  });

  it('requires integers for gt and lt, and aggregates several problems in brackets', () => {
    assert.equal(parseError('x>a'), "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer");
    assert.equal(
      parseError('x<9223372036854775808'),
      "unable to parse requirement: values[0]: Invalid value: \"9223372036854775808\": for 'Gt', 'Lt' operators, the value must be an integer",
    );
    assert.equal(parseError('x>-1'), `unable to parse requirement: values[0][x]: Invalid value: "-1": ${labelValueRule}`);
    assert.equal(
      parseError('x>a-'),
      `unable to parse requirement: [values[0]: Invalid value: "a-": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: "a-": ${labelValueRule}]`,
    );
  });

  it('throws a SelectorParseError', () => {
    assert.throws(() => parseLabelSelector('a b'), SelectorParseError);
  });
});

describe('matches', () => {
  it('matches equality and set membership only when the label is present', () => {
    assert.ok(sel('x=y', { x: 'y' }));
    assert.ok(!sel('x=y', { x: 'z' }));
    assert.ok(!sel('x=y', {}));
    assert.ok(!sel('x=', {}));
    assert.ok(sel('x=', { x: '' }));
    assert.ok(sel('x in (a,b)', { x: 'b' }));
    assert.ok(!sel('x in (a,b)', undefined));
  });

  it('matches != and notin for objects without the label', () => {
    assert.ok(sel('x!=y', {}));
    assert.ok(sel('x!=y', undefined));
    assert.ok(!sel('x!=y', { x: 'y' }));
    assert.ok(sel('x notin (a,b)', { y: 'a' }));
    assert.ok(!sel('x notin (a,b)', { x: 'a' }));
  });

  it('matches existence', () => {
    assert.ok(sel('x', { x: '' }));
    assert.ok(!sel('x', { y: 'x' }));
    assert.ok(sel('!x', { y: 'x' }));
    assert.ok(!sel('!x', { x: '' }));
  });

  it('compares gt and lt as 64-bit integers and never matches a missing or non-numeric label', () => {
    assert.ok(sel('x>1', { x: '2' }));
    assert.ok(!sel('x>1', { x: '1' }));
    assert.ok(sel('x<1', { x: '-5' }));
    assert.ok(sel('x>9007199254740992', { x: '9007199254740993' }));
    assert.ok(!sel('x>1', {}));
    assert.ok(!sel('x>1', { x: 'abc' }));
    assert.ok(!sel('x<1', { x: '1.5' }));
  });

  it('requires every requirement', () => {
    assert.ok(sel('x=y,z=w', { x: 'y', z: 'w' }));
    assert.ok(!sel('x=y,z=w', { x: 'y', z: 'v' }));
  });

  it('does not see inherited properties as labels', () => {
    assert.ok(!sel('toString', {}));
    assert.ok(sel('!constructor', {}));
  });
});

describe('labelSelectorFromObject', () => {
  it('selects nothing for an absent selector and everything for an empty one', () => {
    const none = labelSelectorFromObject(undefined);
    assert.ok(!matches(none, {}));
    assert.ok(!isEverything(none));
    assert.ok(isEverything(labelSelectorFromObject({})));
    assert.ok(matches(labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] }), { a: 'b' }));
  });

  it('combines matchLabels and matchExpressions', () => {
    const s = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['a', 'b'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'zone', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    assert.equal(labelSelectorString(s), 'app=web,env notin (prod),!legacy,tier in (a,b),zone');
    assert.ok(matches(s, { app: 'web', tier: 'b', zone: 'z1' }));
    assert.ok(!matches(s, { app: 'web', tier: 'b', zone: 'z1', legacy: '' }));
    assert.ok(!matches(s, { app: 'web', tier: 'b', zone: 'z1', env: 'prod' }));
  });

  it('rejects unknown operators and invalid requirements with upstream texts', () => {
    assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }), {
      name: 'SelectorParseError',
      message: '"Gt" is not a valid label selector operator',
    });
    assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), {
      message: "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    });
    assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x', 'y'] }] }), {
      message: 'values: Invalid value: []string{"x", "y"}: values set must be empty for exists and does not exist',
    });
    assert.throws(() => labelSelectorFromObject({ matchLabels: { '-a': 'b' } }), {
      message: `key: Invalid value: "-a": ${namePartRule}`,
    });
  });
});

describe('helpers', () => {
  it('prints the canonical string upstream prints', () => {
    assert.equal(labelSelectorString(parseLabelSelector('b in (z,y), a!=1,!c, d')), 'a!=1,b in (y,z),!c,d');
    assert.equal(labelSelectorString(parseLabelSelector('x>1,y<2,z==3')), 'x>1,y<2,z==3');
  });

  it('answers the exact value a selector requires', () => {
    const s = parseLabelSelector('a=1,b in (2),c in (3,4),d!=5');
    assert.equal(requiresExactMatch(s, 'a'), '1');
    assert.equal(requiresExactMatch(s, 'b'), '2');
    assert.equal(requiresExactMatch(s, 'c'), undefined);
    assert.equal(requiresExactMatch(s, 'd'), undefined);
    assert.equal(requiresExactMatch(s, 'e'), undefined);
  });

  it('builds equality selectors from a set', () => {
    const s = labelSelectorFromSet({ b: '2', a: '1' });
    assert.equal(labelSelectorString(s), 'a=1,b=2');
    assert.ok(isEverything(labelSelectorFromSet(undefined)));
  });
});
