import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FieldSet,
  FieldsV1Error,
  compareStrings,
  compareValues,
  deserializeElement,
  fromFieldsV1,
  goJSON,
  indexElement,
  keyElement,
  makePath,
  pathString,
  serializeElement,
  toFieldsV1,
  valueElement,
  valuesEqual,
} from './fieldpath.ts';
import { goQuote } from '../go/format.ts';

const container = (name: string) => keyElement([{ name: 'name', value: name }]);

test('paths print as upstream prints them in conflict messages', () => {
  assert.equal(pathString(makePath('data', 'key')), '.data.key');
  assert.equal(pathString(makePath('spec', 'containers', container('c'), 'image')), '.spec.containers[name="c"].image');
  const port = keyElement([
    { name: 'protocol', value: 'TCP' },
    { name: 'containerPort', value: 80 },
  ]);
  // Key fields are sorted by name.
  assert.equal(pathString(makePath('ports', port)), '.ports[containerPort=80,protocol="TCP"]');
  assert.equal(pathString(makePath('finalizers', valueElement('a/b'))), '.finalizers[="a/b"]');
  assert.equal(pathString(makePath('args', indexElement(3))), '.args[3]');
  assert.equal(pathString(makePath('set', valueElement(true), valueElement(null))), '.set[=true][=null]');
  assert.equal(pathString(makePath('set', valueElement(2.5))), '.set[=2.5]');
});

test('goQuote follows strconv.Quote', () => {
  assert.equal(goQuote('plain'), '"plain"');
  assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(goQuote('tab\there\n'), '"tab\\there\\n"');
  assert.equal(goQuote('\x01\x7f'), '"\\x01\\x7f"');
  assert.equal(goQuote('héllo ✓'), '"héllo ✓"');
  assert.equal(goQuote('\u200b'), '"\\u200b"');
});

test('strings compare in code point order, as Go compares bytes', () => {
  assert.ok(compareStrings('a', 'b') < 0);
  assert.ok(compareStrings('B', 'a') < 0);
  assert.ok(compareStrings('ab', 'abc') < 0);
  // U+FF21 sorts before U+1F600 in UTF-8, after it in UTF-16 code units.
  assert.ok(compareStrings('\uff21', '\u{1f600}') < 0);
  assert.equal(compareStrings('x', 'x'), 0);
});

test('values order numbers, strings, booleans, lists, maps, null', () => {
  const ordered = [1, 2.5, 3, 'a', 'b', false, true, [1], [1, 2], { a: 1 }, { b: 1 }, null];
  for (let i = 0; i + 1 < ordered.length; i++) assert.ok(compareValues(ordered[i], ordered[i + 1]) < 0, `${i}`);
  assert.ok(valuesEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }));
  assert.ok(!valuesEqual({ a: 1 }, { a: 1, b: null }));
  assert.ok(!valuesEqual([1], { 0: 1 }));
});

test('elements serialize as FieldsV1 keys, with Go JSON in key and value elements', () => {
  assert.equal(serializeElement(makePath('data')[0] as never), 'f:data');
  assert.equal(serializeElement(container('c')), 'k:{"name":"c"}');
  const port = keyElement([
    { name: 'protocol', value: 'TCP' },
    { name: 'containerPort', value: 80 },
  ]);
  assert.equal(serializeElement(port), 'k:{"containerPort":80,"protocol":"TCP"}');
  assert.equal(serializeElement(valueElement('a<b>&c')), 'v:"a\\u003cb\\u003e\\u0026c"');
  assert.equal(serializeElement(valueElement({ z: 1, a: [true] })), 'v:{"a":[true],"z":1}');
  assert.equal(serializeElement(indexElement(0)), 'i:0');
});

test('goJSON sorts keys and escapes as Go does', () => {
  assert.equal(goJSON({ b: 1, a: 'x\ny', c: null }), '{"a":"x\\ny","b":1,"c":null}');
  assert.equal(goJSON('\b\f\u2028'), '"\\u0008\\u000c\\u2028"');
  assert.equal(goJSON('\b\f', true), '"\\b\\f"');
});

test('sets: insert, has, and set algebra', () => {
  const s = FieldSet.of(makePath('a'), makePath('b', 'c'), makePath('b', 'd'));
  assert.ok(s.has(makePath('a')));
  assert.ok(s.has(makePath('b', 'c')));
  assert.ok(!s.has(makePath('b')));
  assert.equal(s.size(), 3);
  const t = FieldSet.of(makePath('b'), makePath('b', 'c'), makePath('e'));
  assert.deepEqual(s.union(t).paths().map(pathString), ['.a', '.b', '.e', '.b.c', '.b.d']);
  assert.deepEqual(s.intersection(t).paths().map(pathString), ['.b.c']);
  // Difference removes members and children path by path; recursive difference also drops
  // everything below a member of the other set.
  assert.deepEqual(s.difference(t).paths().map(pathString), ['.a', '.b.d']);
  assert.deepEqual(
    s
      .recursiveDifference(FieldSet.of(makePath('b')))
      .paths()
      .map(pathString),
    ['.a'],
  );
  assert.ok(new FieldSet().empty());
  assert.ok(s.difference(s).empty());
  assert.equal(s.toString(), '.a\n.b.c\n.b.d');
});

test('FieldsV1: members are {}, a member with children gets ".", keys in element order', () => {
  const s = FieldSet.of(
    makePath('data'),
    makePath('data', 'b'),
    makePath('data', 'a'),
    makePath('metadata', 'labels', 'x'),
    makePath('spec', 'containers', container('c')),
    makePath('spec', 'containers', container('c'), 'name'),
    makePath('spec', 'containers', container('c'), 'image'),
    makePath('spec', 'finalizers', valueElement('x')),
    makePath('spec', 'args', indexElement(0)),
  );
  const encoded = toFieldsV1(s);
  assert.equal(
    JSON.stringify(encoded),
    '{"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:labels":{"f:x":{}}},"f:spec":{"f:args":{"i:0":{}},"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{},"f:name":{}}},"f:finalizers":{"v:\\"x\\"":{}}}}',
  );
  assert.ok(fromFieldsV1(encoded).equals(s));
  assert.equal(JSON.stringify(toFieldsV1(new FieldSet())), '{}');
});

test('FieldsV1 round trips of upstream test trees keep their encoding', () => {
  const trees = [
    '{"v:3":{"f:alsoPi":{}},"v:3.1415":{"f:pi":{}},"v:false":{"f:notTrue":{}}}',
    '{"i:5":{"f:i":{}}}',
    '{"f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{"f:image":{},"f:name":{}}}}}',
    '{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:labels":{"f:app":{}},"f:name":{}},"f:spec":{"f:replicas":{},"f:selector":{"f:matchLabels":{"f:app":{}}},"f:template":{"f:medatada":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"i:0":{"f:containerPort":{}}}}}}}}}',
  ];
  for (const tree of trees) assert.equal(JSON.stringify(toFieldsV1(fromFieldsV1(JSON.parse(tree)))), tree);
});

test('FieldsV1 decoding: sorted on read, unknown element types skipped, malformed keys rejected', () => {
  const s = fromFieldsV1({ 'f:b': {}, 'f:a': { '.': {}, 'f:x': {} }, 'x:ignored': {}, 'k:{"z":1,"a":2}': {} });
  assert.deepEqual(s.paths().map(pathString), ['.a', '.b', '[a=2,z=1]', '.a.x']);
  assert.equal(deserializeElement('x:anything'), null);
  assert.throws(() => fromFieldsV1({ 'k:{invalid json}': { 'f:name': {}, '.': {} } }), FieldsV1Error);
  assert.throws(() => fromFieldsV1({ f: {} }), /key must be 2 characters long/);
  assert.throws(() => fromFieldsV1({ fx: {} }), /missing colon: fx/);
  assert.throws(() => fromFieldsV1({ 'i:one': {} }), /invalid syntax/);
  assert.throws(() => fromFieldsV1({ 'f:a': 1 }), FieldsV1Error);
  assert.throws(() => fromFieldsV1([]), FieldsV1Error);
  assert.ok(fromFieldsV1(undefined).empty());
});

test('sets built in any order read in element order, each element once, in both of their modes', () => {
  // In order: appended; out of order: indexed by identity, sorted on the next ordered read.
  const names = Array.from({ length: 1000 }, (_, i) => `l${i}`);
  const shuffled = [...names].sort((a, b) => (a.length === b.length ? b.localeCompare(a) : a.length - b.length));
  const s = new FieldSet();
  for (const name of shuffled) s.insert(makePath('metadata', 'labels', name));
  // Inserted again, some while the level is out of order: still once.
  for (const name of names.slice(0, 10)) s.insert(makePath('metadata', 'labels', name));
  const labels = s.withPrefix(makePath('metadata')[0]!).withPrefix(makePath('labels')[0]!);
  assert.deepEqual(
    labels.members.map((m) => (m.type === 'field' ? m.name : '')),
    [...names].sort(compareStrings),
  );
  assert.equal(s.size(), 1000);
  assert.ok(s.has(makePath('metadata', 'labels', 'l999')));
  assert.ok(!s.has(makePath('metadata', 'labels', 'l1000')));
  // Keyed and value elements find themselves by identity while out of order too.
  const set = new FieldSet();
  for (const name of ['c', 'a', 'b', 'a']) set.insert(makePath('spec', 'containers', keyElement([{ name: 'name', value: name }])));
  for (const value of [3, 1, 2, 1]) set.insert(makePath('spec', 'ports', valueElement(value)));
  assert.ok(set.has(makePath('spec', 'containers', keyElement([{ name: 'name', value: 'a' }]))));
  assert.equal(
    set.toString(),
    ['.spec.containers[name="a"]', '.spec.containers[name="b"]', '.spec.containers[name="c"]', '.spec.ports[=1]', '.spec.ports[=2]', '.spec.ports[=3]'].join(
      '\n',
    ),
  );
  // Set algebra over a level read out of order.
  const other = FieldSet.of(makePath('metadata', 'labels', 'l5'), makePath('metadata', 'labels', 'zz'));
  assert.equal(s.intersection(other).size(), 1);
  assert.equal(s.union(other).size(), 1001);
  assert.equal(s.difference(other).size(), 999);
});
