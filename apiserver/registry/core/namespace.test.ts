import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../shared/api/field.ts';
import { namespaceDefinition, type Namespace } from './namespace.ts';

const ctx = { user: { username: 'tester', groups: [] }, now: new Date('2024-01-01T00:00:00Z') };
const strategy = namespaceDefinition.strategy;
const statusSub = namespaceDefinition.subresources?.status;
const finalizeSub = namespaceDefinition.subresources?.finalize;
const namespace = (fields: Partial<Namespace> = {}): Namespace => ({ metadata: { name: 'team' }, ...fields });
const strings = (errors: Parameters<typeof fieldErrorString>[0][]): string[] => errors.map(fieldErrorString);

describe('namespaceDefinition', () => {
  it('is cluster-scoped v1 namespaces, short name ns, named by DNS labels, without deletecollection', () => {
    assert.equal(namespaceDefinition.plural, 'namespaces');
    assert.deepEqual(namespaceDefinition.shortNames, ['ns']);
    assert.equal(namespaceDefinition.namespaced, false);
    assert.ok(!namespaceDefinition.verbs.includes('deletecollection'));
    assert.deepEqual(namespaceDefinition.nameRule?.('a.b', false), [
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.deepEqual(statusSub?.verbs, ['get', 'update', 'patch']);
    assert.deepEqual(finalizeSub?.verbs, ['update']);
    assert.equal(namespaceDefinition.fieldSelectors?.['status.phase']?.(namespace({ status: { phase: 'Terminating' } })), 'Terminating');
  });

  describe('create', () => {
    it('starts Active, drops client status, adds the kubernetes finalizer and the name label', () => {
      const ns = namespace({ spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating', conditions: [{ type: 'X', status: 'True' }] } });
      strategy.prepareForCreate?.(ns, ctx);
      assert.deepEqual(ns.status, { phase: 'Active' });
      assert.deepEqual(ns.spec?.finalizers, ['example.com/x', 'kubernetes']);
      assert.deepEqual(ns.metadata.labels, { 'kubernetes.io/metadata.name': 'team' });
    });

    it('defaults spec.finalizers to [kubernetes] and keeps it single', () => {
      const bare = namespace();
      strategy.prepareForCreate?.(bare, ctx);
      assert.deepEqual(bare.spec?.finalizers, ['kubernetes']);
      const already = namespace({ spec: { finalizers: ['kubernetes'] } });
      strategy.prepareForCreate?.(already, ctx);
      assert.deepEqual(already.spec?.finalizers, ['kubernetes']);
    });

    it('reports unqualified finalizer names at spec.finalizers, without an index', () => {
      assert.deepEqual(strings(strategy.validate(namespace({ spec: { finalizers: ['kubernetes', 'orphan', 'foregroundDeletion', 'a/b'] } }), ctx)), []);
      assert.deepEqual(strings(strategy.validate(namespace({ spec: { finalizers: ['kubernetes', 'custom'] } }), ctx)), [
        'spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
      ]);
      assert.deepEqual(strings(strategy.validate(namespace({ spec: { finalizers: ['a/-b'] } }), ctx)), [
        `spec.finalizers: Invalid value: "a/-b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ]);
    });
  });

  describe('update of the main resource', () => {
    it('keeps spec.finalizers and status from the stored object', () => {
      const old = namespace({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
      const ns = namespace({ metadata: { name: 'team', labels: { a: 'b' } }, spec: { finalizers: [] }, status: { phase: 'Terminating' } });
      strategy.prepareForUpdate?.(ns, old, ctx);
      assert.deepEqual(ns.spec, { finalizers: ['kubernetes'] });
      assert.deepEqual(ns.status, { phase: 'Active' });
      assert.deepEqual(ns.metadata.labels, { a: 'b', 'kubernetes.io/metadata.name': 'team' });
      assert.deepEqual(strings(strategy.validateUpdate?.(ns, old, ctx) ?? []), []);
    });
  });

  describe('delete', () => {
    it('marks the namespace Terminating and waits while spec.finalizers remain', () => {
      const ns = namespace({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
      assert.equal(strategy.prepareForDelete?.(ns, ctx), true);
      assert.equal(ns.status?.phase, 'Terminating');
      assert.equal(strategy.hasPendingFinalizers?.(ns), true);
    });

    it('lets a namespace without spec.finalizers go', () => {
      const ns = namespace({ spec: { finalizers: [] }, status: { phase: 'Active' } });
      assert.equal(strategy.prepareForDelete?.(ns, ctx), false);
      assert.equal(strategy.hasPendingFinalizers?.(ns), false);
    });

    it('answers DELETE with the namespace, as upstream does', () => {
      assert.equal(namespaceDefinition.deleteReturnsObject, true);
    });
  });

  describe('status subresource', () => {
    it('changes only status', () => {
      const old = namespace({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
      const ns = namespace({ spec: { finalizers: [] }, status: { phase: 'Active', conditions: [{ type: 'X', status: 'True' }] } });
      statusSub?.prepareForUpdate(ns, old, ctx);
      assert.deepEqual(ns.spec, { finalizers: ['kubernetes'] });
      assert.deepEqual(ns.status?.conditions, [{ type: 'X', status: 'True' }]);
    });

    it('allows only the phase that matches deletionTimestamp', () => {
      const old = namespace({ status: { phase: 'Active' } });
      assert.deepEqual(strings(statusSub?.validateUpdate(namespace({ status: { phase: 'Active' } }), old, ctx) ?? []), []);
      assert.deepEqual(strings(statusSub?.validateUpdate(namespace({ status: { phase: 'Terminating' } }), old, ctx) ?? []), [
        'status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty',
      ]);
      const deleting = (phase: string): Namespace => ({ metadata: { name: 'team', deletionTimestamp: '2024-01-01T00:00:00Z' }, status: { phase } });
      assert.deepEqual(strings(statusSub?.validateUpdate(deleting('Terminating'), old, ctx) ?? []), []);
      assert.deepEqual(strings(statusSub?.validateUpdate(deleting('Active'), old, ctx) ?? []), [
        'status.Phase: Invalid value: "Active": may only be \'Terminating\' if `deletionTimestamp` is not empty',
      ]);
    });
  });

  describe('finalize subresource', () => {
    it('changes only spec', () => {
      const old = namespace({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Terminating' } });
      const ns = namespace({ spec: { finalizers: [] }, status: { phase: 'Active' } });
      finalizeSub?.prepareForUpdate(ns, old, ctx);
      assert.deepEqual(ns.spec, { finalizers: [] });
      assert.deepEqual(ns.status, { phase: 'Terminating' });
    });

    it('reports bad finalizer names with their index', () => {
      assert.deepEqual(strings(finalizeSub?.validateUpdate(namespace({ spec: { finalizers: ['kubernetes', 'custom'] } }), namespace(), ctx) ?? []), [
        'spec.finalizers[1]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
      ]);
    });
  });
});
