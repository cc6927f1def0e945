import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString, type FieldError } from '../../../shared/api/field.ts';
import { isQualifiedName } from '../../../shared/validation/names.ts';
import { coreEventDefinition, validateNewStyleEventCreate, validateNewStyleEventUpdate, type CoreEvent } from './event.ts';

const ctx = { user: { username: 'tester', groups: [] }, now: new Date('2024-01-01T00:00:00Z') };
const strategy = coreEventDefinition.strategy;
const strings = (errors: FieldError[] | undefined): string[] => (errors ?? []).map(fieldErrorString);
const event = (namespace: string, fields: Partial<CoreEvent> = {}): CoreEvent => ({ metadata: { name: 'e1', namespace }, ...fields });
const validate = (e: CoreEvent): string[] => strings(strategy.validate(e, ctx));

/** A valid new-style event, as events.k8s.io clients write them. */
const newStyle = (fields: Partial<CoreEvent> = {}): CoreEvent =>
  event('default', {
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' },
    eventTime: '2024-01-01T00:00:00.123456Z',
    reportingComponent: 'example.com/controller',
    reportingInstance: 'controller-1',
    action: 'Scheduling',
    reason: 'Scheduled',
    type: 'Normal',
    ...fields,
  });

describe('coreEventDefinition', () => {
  it('is v1 events, short name ev, namespaced, created by PUT, named by path segments', () => {
    assert.equal(coreEventDefinition.plural, 'events');
    assert.deepEqual(coreEventDefinition.shortNames, ['ev']);
    assert.equal(coreEventDefinition.namespaced, true);
    assert.equal(strategy.allowCreateOnUpdate, true);
    assert.deepEqual(coreEventDefinition.nameRule?.('Pod.Name:1', false), []);
    assert.deepEqual(coreEventDefinition.schema.required, ['metadata', 'involvedObject']);
  });

  describe('old-style events (no eventTime)', () => {
    it('must be in the namespace of the object they are about', () => {
      assert.deepEqual(validate(event('ns1', { involvedObject: { namespace: 'ns1' } })), []);
      assert.deepEqual(validate(event('ns2', { involvedObject: { namespace: 'ns1' } })), [
        'involvedObject.namespace: Invalid value: "ns1": does not match event.namespace',
      ]);
    });

    it('about cluster-scoped objects may only live in default', () => {
      assert.deepEqual(validate(event('default', { involvedObject: { kind: 'Node', name: 'n1' } })), []);
      assert.deepEqual(validate(event('kube-system', { involvedObject: { kind: 'Node', name: 'n1' } })), [
        'involvedObject.namespace: Invalid value: "": does not match event.namespace',
      ]);
    });

    it('need no reporting fields and get no type check through the core API', () => {
      assert.deepEqual(validate(event('ns1', { involvedObject: { namespace: 'ns1' }, type: 'Odd', count: 3 })), []);
    });
  });

  describe('new-style events (eventTime set)', () => {
    it('pass when complete', () => {
      assert.deepEqual(validate(newStyle()), []);
    });

    it('about cluster-scoped objects may live in default or kube-system', () => {
      assert.deepEqual(validate(newStyle({ metadata: { name: 'e', namespace: 'kube-system' }, involvedObject: { kind: 'Node', name: 'n' } })), []);
      assert.deepEqual(validate(newStyle({ metadata: { name: 'e', namespace: 'ns1' }, involvedObject: { kind: 'Node', name: 'n' } })), [
        'involvedObject.namespace: Invalid value: "": does not match event.namespace',
      ]);
    });

    it('need the reporting fields, action and reason, named as upstream names them', () => {
      assert.deepEqual(validate(newStyle({ reportingComponent: '', reportingInstance: '', action: '', reason: '' })), [
        'reportingController: Required value',
        // Upstream also runs the qualified-name check on the empty name; its wording is names.ts's to match.
        ...isQualifiedName('').map((msg) => `reportingController: Invalid value: "": ${msg}`),
        'reportingInstance: Required value',
        'action: Required value',
        'reason: Required value',
      ]);
    });

    it('need a qualified reportingController', () => {
      assert.deepEqual(validate(newStyle({ reportingComponent: 'a//b' })), [
        `reportingController: Invalid value: "a//b": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      ]);
    });

    it('limit reportingInstance, action and reason to 128 bytes and message to 1024', () => {
      assert.deepEqual(
        validate(newStyle({ reportingInstance: 'i'.repeat(128), action: 'a'.repeat(128), reason: 'r'.repeat(128), message: 'm'.repeat(1024) })),
        [],
      );
      assert.deepEqual(
        validate(newStyle({ reportingInstance: 'i'.repeat(129), action: 'a'.repeat(129), reason: 'r'.repeat(129), message: 'm'.repeat(1025) })),
        [
          'reportingInstance: Invalid value: "": can have at most 128 characters',
          'action: Invalid value: "": can have at most 128 characters',
          'reason: Invalid value: "": can have at most 128 characters',
          'message: Invalid value: "": can have at most 1024 characters',
        ],
      );
    });
  });

  it('validates updates with the legacy rules only', () => {
    const old = newStyle();
    assert.deepEqual(strings(strategy.validateUpdate?.(newStyle({ reason: 'Changed', count: 2 }), old, ctx)), []);
    assert.deepEqual(strings(strategy.validateUpdate?.(newStyle({ action: '' }), old, ctx)), ['action: Required value']);
  });

  it('selects by the fields upstream offers', () => {
    const e = newStyle({ source: { component: 'kubelet' } });
    const selectors = coreEventDefinition.fieldSelectors ?? {};
    assert.deepEqual(Object.keys(selectors).sort(), [
      'involvedObject.apiVersion',
      'involvedObject.fieldPath',
      'involvedObject.kind',
      'involvedObject.name',
      'involvedObject.namespace',
      'involvedObject.resourceVersion',
      'involvedObject.uid',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ]);
    assert.equal(selectors['involvedObject.kind']?.(e), 'Pod');
    assert.equal(selectors['involvedObject.uid']?.(e), '');
    assert.equal(selectors.source?.(e), 'kubelet');
    assert.equal(selectors.source?.(newStyle()), 'example.com/controller');
    assert.equal(selectors.reportingComponent?.(e), 'example.com/controller');
  });
});

describe('new-style event checks (events.k8s.io writes)', () => {
  it('require eventTime, a known type, and no deprecated fields on create', () => {
    assert.deepEqual(strings(validateNewStyleEventCreate(newStyle())), []);
    const e = newStyle({
      eventTime: undefined,
      type: 'Odd',
      firstTimestamp: '2024-01-01T00:00:00Z',
      lastTimestamp: '2024-01-01T00:00:00Z',
      count: 1,
      source: { host: 'h' },
    });
    assert.deepEqual(strings(validateNewStyleEventCreate(e)), [
      'eventTime: Required value',
      'type: Invalid value: "": has invalid value: Odd',
      'firstTimestamp: Invalid value: "": needs to be unset',
      'lastTimestamp: Invalid value: "": needs to be unset',
      'count: Invalid value: "": needs to be unset',
      'source: Invalid value: "": needs to be unset',
    ]);
  });

  it('check a series', () => {
    assert.deepEqual(strings(validateNewStyleEventCreate(newStyle({ series: { count: 2, lastObservedTime: '2024-01-01T00:00:00Z' } }))), []);
    assert.deepEqual(strings(validateNewStyleEventCreate(newStyle({ series: { count: 1 } }))), [
      'series.count: Invalid value: "": should be at least 2',
      'series.lastObservedTime: Required value',
    ]);
  });

  it('let an update change only the series', () => {
    const old = newStyle();
    const series = { count: 5, lastObservedTime: '2024-01-01T00:05:00Z' };
    assert.deepEqual(strings(validateNewStyleEventUpdate(newStyle({ series }), old)), []);
    assert.deepEqual(strings(validateNewStyleEventUpdate(newStyle({ series: { count: 1 } }), old)), [
      'series.count: Invalid value: "": should be at least 2',
      'series.lastObservedTime: Required value',
    ]);
    // The same instant written differently is no change.
    assert.deepEqual(strings(validateNewStyleEventUpdate(newStyle({ eventTime: '2024-01-01T01:00:00.123456+01:00' }), old)), []);
  });

  it('report every changed field as immutable, reason twice as upstream does', () => {
    const old = newStyle({ related: { kind: 'Node', name: 'n' } });
    const changed = newStyle({
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'q' },
      reason: 'Other',
      message: 'm',
      eventTime: '2024-01-02T00:00:00Z',
      action: 'Other',
      type: 'Warning',
      reportingComponent: 'other',
      reportingInstance: 'other-1',
    });
    assert.deepEqual(strings(validateNewStyleEventUpdate(changed, old)), [
      'involvedObject: Invalid value: {"kind":"Pod","namespace":"default","name":"q"}: field is immutable',
      'reason: Invalid value: "Other": field is immutable',
      'message: Invalid value: "m": field is immutable',
      'reason: Invalid value: "Other": field is immutable',
      'type: Invalid value: "Warning": field is immutable',
      'eventTime: Invalid value: "2024-01-02T00:00:00Z": field is immutable',
      'action: Invalid value: "Other": field is immutable',
      'related: Invalid value: null: field is immutable',
      'reportingController: Invalid value: "other": field is immutable',
      'reportingInstance: Invalid value: "other-1": field is immutable',
    ]);
  });
});
