import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { ObjectMeta } from '../api/types.ts';
import { FieldPath, fieldErrorString, type FieldError } from '../api/field.ts';
import { nameIsDNSLabel, nameIsDNSSubdomain } from './names.ts';
import { customResourceFinalizerWarnings, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.ts';

const subdomainRule =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelRule =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const namePartRule =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueRule =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const namespaced = { namespaced: true, nameRule: nameIsDNSSubdomain };
const cluster = { namespaced: false, nameRule: nameIsDNSSubdomain };

const texts = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const create = (meta: ObjectMeta, opts = namespaced): string[] => texts(validateObjectMeta(meta, opts));
const valid: ObjectMeta = { name: 'a', namespace: 'ns' };

describe('validateObjectMeta', () => {
  it('accepts valid metadata', () => {
    assert.deepEqual(
      create({
        ...valid,
        generation: 1,
        labels: { 'app.kubernetes.io/name': 'web', empty: '' },
        annotations: { 'Example.COM/Note': 'anything at all' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
        finalizers: ['kubernetes', 'orphan', 'example.com/cleanup'],
        managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: {} }],
      }),
      [],
    );
  });

  it('requires a name', () => {
    assert.deepEqual(create({ namespace: 'ns' }), ['metadata.name: Required value: name or generateName is required']);
  });

  it('checks name and generateName with the kind rule, tolerating a trailing dash in generateName', () => {
    assert.deepEqual(create({ ...valid, generateName: 'web-' }), []);
    // Upstream checks a generateName with its last two characters masked as 'a' (maskTrailingDash).
    assert.deepEqual(create({ ...valid, generateName: 'B-' }), []);
    assert.deepEqual(create({ ...valid, name: 'A', generateName: 'Bb-' }), [
      `metadata.generateName: Invalid value: "Bb-": ${subdomainRule}`,
      `metadata.name: Invalid value: "A": ${subdomainRule}`,
    ]);
    assert.deepEqual(texts(validateObjectMeta({ ...valid, name: 'a.b' }, { namespaced: true, nameRule: nameIsDNSLabel })), [
      `metadata.name: Invalid value: "a.b": ${labelRule}`,
    ]);
  });

  it('requires a DNS-label namespace for namespaced kinds and forbids one for cluster kinds', () => {
    assert.deepEqual(create({ name: 'a' }), ['metadata.namespace: Required value']);
    assert.deepEqual(create({ name: 'a', namespace: 'a.b' }), [`metadata.namespace: Invalid value: "a.b": ${labelRule}`]);
    assert.deepEqual(create({ name: 'a', namespace: 'ns' }, cluster), ['metadata.namespace: Forbidden: not allowed on this type']);
    assert.deepEqual(create({ name: 'a' }, cluster), []);
  });

  it('rejects a negative generation', () => {
    assert.deepEqual(create({ ...valid, generation: -1 }), ['metadata.generation: Invalid value: -1: must be greater than or equal to 0']);
  });

  it('reports label keys and values at the labels map', () => {
    assert.deepEqual(create({ ...valid, labels: { '-a': 'ok', b: 'not ok' } }), [
      `metadata.labels: Invalid value: "-a": ${namePartRule}`,
      `metadata.labels: Invalid value: "not ok": ${labelValueRule}`,
    ]);
  });

  it('checks annotation keys case-insensitively and limits their total size', () => {
    assert.deepEqual(create({ ...valid, annotations: { 'A_B/C': 'x' } }), [`metadata.annotations: Invalid value: "A_B/C": prefix part ${subdomainRule}`]);
    const limit = 256 * 1024;
    assert.deepEqual(create({ ...valid, annotations: { k: 'v'.repeat(limit - 1) } }), []);
    assert.deepEqual(create({ ...valid, annotations: { k: 'v'.repeat(limit) } }), ['metadata.annotations: Too long: may not be more than 262144 bytes']);
    // Bytes, not characters: 'é' is two bytes in UTF-8.
    assert.deepEqual(create({ ...valid, annotations: { k: 'é'.repeat(limit / 2) } }), ['metadata.annotations: Too long: may not be more than 262144 bytes']);
  });

  it('requires owner reference fields, at the unindexed list path', () => {
    const bad = { apiVersion: '', kind: '', name: '', uid: '' };
    assert.deepEqual(create({ ...valid, ownerReferences: [bad] }), [
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
    assert.deepEqual(create({ ...valid, ownerReferences: [{ apiVersion: 'apps/', kind: 'K', name: 'n', uid: 'u' }] }), [
      'metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty',
    ]);
  });

  it('forbids events as owners', () => {
    const errs = validateObjectMeta({ ...valid, ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] }, namespaced);
    assert.deepEqual(
      errs.map((e) => [e.field, e.type, e.detail]),
      [['metadata.ownerReferences', 'FieldValueInvalid', '/v1, Kind=Event is disallowed from being an owner']],
    );
  });

  it('allows one controller reference only', () => {
    const ref = (kind: string, name: string) => ({ apiVersion: 'apps/v1', kind, name, uid: name, controller: true });
    const errs = validateObjectMeta({ ...valid, ownerReferences: [ref('ReplicaSet', 'a'), ref('Deployment', 'b'), ref('StatefulSet', 'c')] }, namespaced);
    assert.deepEqual(
      errs.map((e) => [e.field, e.detail]),
      [
        ['metadata.ownerReferences', 'Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and Deployment/b'],
        ['metadata.ownerReferences', 'Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and StatefulSet/c'],
      ],
    );
  });

  it('checks finalizer names: qualified at the list path, standard-or-prefixed at the index', () => {
    assert.deepEqual(create({ ...valid, finalizers: ['example.com/ok', 'foo', '-bad'] }), [
      `metadata.finalizers: Invalid value: "-bad": ${namePartRule}`,
      'metadata.finalizers[1]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
      'metadata.finalizers[2]: Invalid value: "-bad": name is neither a standard finalizer name nor is it fully qualified',
    ]);
    assert.deepEqual(texts(validateObjectMeta({ ...valid, finalizers: ['foo'] }, { ...namespaced, strictFinalizerNames: false })), []);
  });

  it('rejects orphan together with foregroundDeletion', () => {
    const errs = validateObjectMeta({ ...valid, finalizers: ['orphan', 'foregroundDeletion'] }, namespaced);
    assert.deepEqual(
      errs.map((e) => [e.field, e.value, e.detail]),
      [['metadata.finalizers', ['orphan', 'foregroundDeletion'], 'finalizer orphan and foregroundDeletion cannot be both set']],
    );
  });

  it('checks managed field entries', () => {
    const errs = validateObjectMeta(
      {
        ...valid,
        managedFields: [
          { manager: 'ok', operation: 'Apply' },
          { manager: `a\u0007b${'m'.repeat(130)}`, operation: 'Patch' as 'Apply', fieldsType: 'FieldsV2', subresource: 's'.repeat(257) },
          { manager: 'x' },
        ],
      },
      namespaced,
    );
    assert.deepEqual(
      errs.map((e) => [e.field, e.type, e.detail]),
      [
        ['metadata.managedFields[1].operation', 'FieldValueInvalid', 'must be `Apply` or `Update`'],
        ['metadata.managedFields[1].fieldsType', 'FieldValueInvalid', 'must be `FieldsV1`'],
        ['metadata.managedFields[1].manager', 'FieldValueTooLong', 'may not be more than 128 bytes'],
        ['metadata.managedFields[1].manager', 'FieldValueInvalid', 'invalid character U+0007 (at position 1)'],
        ['metadata.managedFields[1].subresource', 'FieldValueTooLong', 'may not be more than 256 bytes'],
        ['metadata.managedFields[2].operation', 'FieldValueInvalid', 'must be `Apply` or `Update`'],
      ],
    );
    assert.equal(fieldErrorString(errs[0] as FieldError), 'metadata.managedFields[1].operation: Invalid value: "Patch": must be `Apply` or `Update`');
  });

  it('reports under the given root path', () => {
    assert.deepEqual(texts(validateObjectMeta({ namespace: 'ns' }, namespaced, FieldPath.root('spec').child('template', 'metadata'))), [
      'spec.template.metadata.name: Required value: name or generateName is required',
    ]);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMeta = {
    name: 'a',
    namespace: 'ns',
    uid: 'u1',
    generation: 2,
    resourceVersion: '5',
    creationTimestamp: '2024-01-02T03:04:05Z',
    finalizers: ['example.com/a'],
  };
  const update = (changes: Partial<ObjectMeta>, from: ObjectMeta = old): string[] => texts(validateObjectMetaUpdate({ ...from, ...changes }, from));

  it('accepts an unchanged object and equal instants written differently', () => {
    assert.deepEqual(update({}), []);
    assert.deepEqual(update({ creationTimestamp: '2024-01-02T04:04:05+01:00', generation: 3, resourceVersion: '' }), []);
  });

  it('keeps name, namespace and uid immutable', () => {
    assert.deepEqual(update({ name: 'b', namespace: 'other', uid: 'u2' }), [
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.namespace: Invalid value: "other": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
    ]);
  });

  it('keeps timestamps and the grace period immutable, printing times in the layout Go uses', () => {
    assert.deepEqual(update({ creationTimestamp: '2025-01-01T00:00:00Z' }), [
      'metadata.creationTimestamp: Invalid value: "2025-01-01 00:00:00 +0000 UTC": field is immutable',
    ]);
    assert.deepEqual(update({ deletionTimestamp: '2025-06-07T08:09:10Z', deletionGracePeriodSeconds: 30 }), [
      'metadata.deletionTimestamp: Invalid value: "2025-06-07 08:09:10 +0000 UTC": field is immutable',
      'metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable',
    ]);
    const deleting = { ...old, deletionTimestamp: '2025-06-07T08:09:10Z', deletionGracePeriodSeconds: 30 };
    assert.deepEqual(update({ deletionTimestamp: undefined, deletionGracePeriodSeconds: 10 }, deleting), [
      'metadata.deletionTimestamp: Invalid value: null: field is immutable',
      'metadata.deletionGracePeriodSeconds: Invalid value: 10: field is immutable',
    ]);
  });

  it('does not let the generation go back', () => {
    assert.deepEqual(update({ generation: 1 }), ['metadata.generation: Invalid value: 1: must not be decremented']);
  });

  it('forbids new finalizers once deletion started, but allows removing them', () => {
    const deleting = { ...old, deletionTimestamp: '2025-06-07T08:09:10Z' };
    assert.deepEqual(update({ finalizers: ['example.com/z', 'example.com/a', 'example.com/b'] }, deleting), [
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b", "example.com/z"}',
    ]);
    assert.deepEqual(update({ finalizers: [] }, deleting), []);
    assert.deepEqual(update({ finalizers: ['example.com/a', 'example.com/b'] }), []);
  });

  it('applies the create checks that still apply, each once', () => {
    assert.deepEqual(update({ labels: { a: 'b c' }, finalizers: ['foo'], generateName: 'x/' }), [
      `metadata.generateName: Invalid value: "x/": may not contain '/'`,
      `metadata.labels: Invalid value: "b c": ${labelValueRule}`,
      'metadata.finalizers[0]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
    ]);
    assert.deepEqual(texts(validateObjectMetaUpdate({ ...old, finalizers: ['foo'] }, old, FieldPath.root('metadata'), { strictFinalizerNames: false })), []);
  });

  it('checks the namespace only when asked', () => {
    const clusterOld = { name: 'a', uid: 'u1' };
    assert.deepEqual(texts(validateObjectMetaUpdate(clusterOld, clusterOld, FieldPath.root('metadata'), { namespaced: true })), [
      'metadata.namespace: Required value',
    ]);
    assert.deepEqual(texts(validateObjectMetaUpdate(clusterOld, clusterOld)), []);
  });
});

describe('customResourceFinalizerWarnings', () => {
  it('warns about added finalizers without a domain prefix, in sorted order', () => {
    assert.deepEqual(customResourceFinalizerWarnings(['foo', 'x/y', 'kubernetes', 'a.b', '-c']), [
      `metadata.finalizers: "-c": ${namePartRule}`,
      'metadata.finalizers: "-c": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers',
      'metadata.finalizers: "a.b": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers',
      'metadata.finalizers: "foo": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers',
    ]);
    assert.deepEqual(customResourceFinalizerWarnings(['foo', 'a.b'], ['foo']), [
      'metadata.finalizers: "a.b": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers',
    ]);
  });
});
