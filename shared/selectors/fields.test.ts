import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { SelectorParseError } from './errors.ts';
import {
  escapeFieldValue,
  fieldLabelNotSupportedMessage,
  fieldSelectorIsEverything,
  fieldSelectorString,
  matchesFields,
  notKnownFieldSelectorMessage,
  parseFieldSelector,
  requirements,
  requiresExactFieldMatch,
  transformFieldSelector,
  unsupportedFieldLabels,
} from './fields.ts';

function parseError(text: string): string {
  try {
    parseFieldSelector(text);
  } catch (e) {
    assert.ok(e instanceof SelectorParseError);
    return e.message;
  }
  assert.fail(`expected ${JSON.stringify(text)} to be rejected`);
}

const triples = (text: string): [string, string, string][] => requirements(parseFieldSelector(text)).map((r) => [r.field, r.operator, r.value]);

const objectFields: Record<string, string> = { 'metadata.name': 'web', 'status.phase': 'Running', 'spec.nodeName': '' };
const get = (f: string): string | undefined => objectFields[f];
const sel = (text: string): boolean => matchesFields(parseFieldSelector(text), get);

describe('parseFieldSelector', () => {
  it('parses =, == and != terms, sorted by term text', () => {
    assert.deepEqual(triples('status.phase!=Failed,metadata.name==web,a=b'), [
      ['a', '=', 'b'],
      ['metadata.name', '=', 'web'],
      ['status.phase', '!=', 'Failed'],
    ]);
  });

  it('splits each term at its leftmost operator and trims nothing', () => {
    assert.deepEqual(triples('a =!b'), [['a ', '=', '!b']]);
    assert.deepEqual(triples('a!=\\=b'), [['a', '!=', '=b']]);
    assert.equal(parseError('a!==b'), 'invalid field selector: unescaped character in value: 61');
  });

  it('unescapes backslash, comma and equals in values', () => {
    assert.deepEqual(triples('a=x\\,y,b=\\\\,c=\\='), [
      ['a', '=', 'x,y'],
      ['b', '=', '\\'],
      ['c', '=', '='],
    ]);
  });

  it('treats empty input, empty terms and bare operators as everything', () => {
    assert.ok(fieldSelectorIsEverything(parseFieldSelector('')));
    assert.ok(fieldSelectorIsEverything(parseFieldSelector(',')));
    assert.ok(fieldSelectorIsEverything(parseFieldSelector('=')));
    assert.ok(fieldSelectorIsEverything(parseFieldSelector('!=,==')));
    assert.ok(!fieldSelectorIsEverything(parseFieldSelector('a=')));
  });

  it('reports malformed terms with upstream texts', () => {
    assert.equal(parseError('abc'), "invalid selector: 'abc'; can't understand 'abc'");
    assert.equal(parseError('zzz,a=b,yyy'), "invalid selector: 'zzz,a=b,yyy'; can't understand 'yyy'");
    assert.equal(parseError('a=b=c'), 'invalid field selector: unescaped character in value: 61');
    assert.equal(parseError('a=\\x'), 'invalid field selector: invalid escape sequence: \\x');
    assert.equal(parseError('a=b\\'), 'invalid field selector: invalid escape sequence: \\');
  });
});

describe('matchesFields', () => {
  it('compares values exactly; unknown fields read as empty', () => {
    assert.ok(sel('metadata.name=web'));
    assert.ok(!sel('metadata.name=Web'));
    assert.ok(sel('status.phase!=Pending'));
    assert.ok(!sel('status.phase!=Running'));
    assert.ok(sel('spec.nodeName='));
    assert.ok(sel('spec.unknown='));
    assert.ok(sel('spec.unknown!=x'));
    assert.ok(!sel('spec.unknown=x'));
    assert.ok(sel('metadata.name=web,status.phase=Running'));
    assert.ok(!sel('metadata.name=web,status.phase=Failed'));
  });
});

describe('helpers', () => {
  it('prints the canonical string with escaped values', () => {
    assert.equal(fieldSelectorString(parseFieldSelector('b==x\\,y,a!=1')), 'a!=1,b=x\\,y');
    assert.equal(escapeFieldValue('a\\b,c=d'), 'a\\\\b\\,c\\=d');
  });

  it('answers the exact value a selector requires', () => {
    const s = parseFieldSelector('spec.nodeName=n1,status.phase!=Failed');
    assert.equal(requiresExactFieldMatch(s, 'spec.nodeName'), 'n1');
    assert.equal(requiresExactFieldMatch(s, 'status.phase'), undefined);
  });

  it('lists unsupported fields once, in selector order', () => {
    const s = parseFieldSelector('spec.b=1,metadata.name=x,spec.a=2,spec.a!=3');
    assert.deepEqual(unsupportedFieldLabels(s, new Set(['metadata.name', 'metadata.namespace'])), ['spec.a', 'spec.b']);
    assert.equal(fieldLabelNotSupportedMessage('spec.a'), 'field label not supported: spec.a');
    assert.equal(notKnownFieldSelectorMessage('spec.a'), '"spec.a" is not a known field selector: only "metadata.name", "metadata.namespace"');
  });

  it('transforms fields, drops emptied terms and stops at the first rejection', () => {
    const s = parseFieldSelector('spec.host=n1,status.phase=Running,metadata.name=x');
    const renamed = transformFieldSelector(s, (f, v) => (f === 'spec.host' ? ['spec.nodeName', v] : f === 'status.phase' ? ['', ''] : [f, v]));
    assert.equal(fieldSelectorString(renamed), 'metadata.name=x,spec.nodeName=n1');
    const seen: string[] = [];
    assert.throws(
      () =>
        transformFieldSelector(s, (f, v) => {
          seen.push(f);
          if (f.startsWith('spec.')) throw new SelectorParseError(fieldLabelNotSupportedMessage(f));
          return [f, v];
        }),
      { message: 'field label not supported: spec.host' },
    );
    assert.deepEqual(seen, ['metadata.name', 'spec.host']);
  });
});
