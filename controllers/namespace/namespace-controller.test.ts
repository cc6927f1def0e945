/**
 * The namespace controller in process: a fake API answering the namespace, discovery and the lists
 * of what remains; the exact actions of emptying and finalizing a namespace, the conditions it
 * reports, its requeue while content with finalizers remains, and its failures.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { methodNotAllowed, type StatusError } from '../../shared/api/errors.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import type { Namespace, NamespaceCondition } from '../../apiserver/registry/core/namespace.ts';
import { settle, testContext, type TestContext } from '../framework/testing.ts';
import { namespaceDeletionGracePeriodMs, startNamespaceController } from './namespace-controller.ts';

type Config = { concurrentNamespaceSyncs: number };

const nsPath = '/api/v1/namespaces/doomed';
const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function namespace(extra: Partial<Namespace> = {}): Namespace {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'doomed', uid: 'uid-ns', resourceVersion: '5', deletionTimestamp: '2026-01-01T00:00:00Z' },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Terminating' },
    ...extra,
  };
}

interface Served {
  resource: string;
  namespaced: boolean;
  verbs: string[];
}

/** Discovery of core v1 and one group, the namespace as given, and lists answered from `remaining`. */
function cluster(
  ns: Namespace,
  served: Served[],
  remaining: Record<string, KubeObject[]> = {},
  failures: Record<string, StatusError> = {},
): TestContext<Config> {
  const ctx = testContext<Config>({ concurrentNamespaceSyncs: 1 });
  let current = ns;
  ctx.api.react((action) => {
    const failure = failures[`${action.verb} ${action.path}`];
    if (failure) throw failure;
    if (action.verb === 'get' && action.path === nsPath) return current;
    // A status write is stored, as the API server keeps it.
    if (action.verb === 'update' && action.path === `${nsPath}/status`) return (current = action.body as Namespace);
    if (action.verb === 'get' && action.path === '/apis') return { kind: 'APIGroupList', metadata: {}, groups: [] };
    if (action.verb === 'get' && action.path === '/api/v1') {
      return {
        kind: 'APIResourceList',
        metadata: {},
        resources: served.map((r) => ({ name: r.resource, kind: r.resource, namespaced: r.namespaced, verbs: r.verbs })),
      };
    }
    if (action.verb === 'list') return { apiVersion: 'v1', kind: 'List', metadata: {}, items: remaining[action.path] ?? [] };
    return undefined;
  });
  ctx.informers.of<Namespace>('namespaces').set(ns);
  startNamespaceController(ctx);
  return ctx;
}

function statusConditions(ctx: TestContext<Config>): NamespaceCondition[] | undefined {
  const update = ctx.api.actions.find((a) => a.verb === 'update' && a.path === `${nsPath}/status`);
  return (update?.body as Namespace | undefined)?.status?.conditions;
}

const okConditions = [
  ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'],
  ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
  ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
  ['NamespaceContentRemaining', 'False', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'False', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
];

const summary = (conditions: NamespaceCondition[] | undefined): string[][] =>
  (conditions ?? []).map((c) => [c.type, c.status, c.reason ?? '', c.message ?? '']);

describe('namespace controller', () => {
  it('waits the grace period, empties every namespaced kind, reports the conditions and finalizes', async (t) => {
    const ctx = cluster(namespace(), [
      { resource: 'configmaps', namespaced: true, verbs },
      { resource: 'events', namespaced: true, verbs: verbs.filter((v) => v !== 'deletecollection') },
      { resource: 'nodes', namespaced: false, verbs },
      { resource: 'bindings', namespaced: true, verbs: ['create'] },
    ]);
    ctx.api.react((action) =>
      action.verb === 'list' && action.path === '/api/v1/namespaces/doomed/events' && ctx.api.actions.filter((a) => a.path === action.path).length === 1
        ? { apiVersion: 'v1', kind: 'List', metadata: {}, items: [{ metadata: { name: 'e1', namespace: 'doomed' } }] }
        : undefined,
    );
    t.after(() => ctx.stop());
    await settle();
    assert.equal(ctx.api.actions.length, 0);
    ctx.clock.step(namespaceDeletionGracePeriodMs);
    await settle();
    assert.deepEqual(ctx.api.writes(), [
      'DELETE /api/v1/namespaces/doomed/configmaps',
      'DELETE /api/v1/namespaces/doomed/events/e1',
      `UPDATE ${nsPath}/status`,
      `UPDATE ${nsPath}/finalize`,
    ]);
    assert.deepEqual(ctx.api.actions.find((a) => a.path === '/api/v1/namespaces/doomed/configmaps' && a.verb === 'delete')?.body, {
      propagationPolicy: 'Background',
    });
    assert.deepEqual(summary(statusConditions(ctx)), okConditions);
    const finalize = ctx.api.actions.find((a) => a.path === `${nsPath}/finalize`)?.body as Namespace;
    assert.deepEqual(finalize.spec?.finalizers, []);
  });

  it('leaves a namespace that is not being deleted alone', async (t) => {
    const ns = namespace();
    delete ns.metadata.deletionTimestamp;
    const ctx = cluster(ns, [{ resource: 'configmaps', namespaced: true, verbs }]);
    t.after(() => ctx.stop());
    ctx.clock.step(namespaceDeletionGracePeriodMs);
    await settle();
    assert.equal(ctx.api.actions.length, 0);
  });

  it('content with finalizers: reports what remains and looks again after half the estimate plus one second', async (t) => {
    const held = { metadata: { name: 'held', namespace: 'doomed', finalizers: ['example.com/hold'] } };
    const ctx = cluster(namespace(), [{ resource: 'configmaps', namespaced: true, verbs }], { '/api/v1/namespaces/doomed/configmaps': [held] });
    t.after(() => ctx.stop());
    ctx.clock.step(namespaceDeletionGracePeriodMs);
    await settle();
    assert.deepEqual(ctx.api.writes(), ['DELETE /api/v1/namespaces/doomed/configmaps', `UPDATE ${nsPath}/status`]);
    const conditions = summary(statusConditions(ctx));
    assert.deepEqual(conditions[3], [
      'NamespaceContentRemaining',
      'True',
      'SomeResourcesRemain',
      'Some resources are remaining: configmaps. has 1 resource instances',
    ]);
    assert.deepEqual(conditions[4], [
      'NamespaceFinalizersRemaining',
      'True',
      'SomeFinalizersRemain',
      'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
    ]);
    // 15 s estimate: again after 8 s.
    ctx.clock.step(7_999);
    await settle();
    assert.equal(ctx.api.writes().length, 2);
    ctx.clock.step(1);
    await settle();
    assert.deepEqual(ctx.api.writes().slice(2), ['DELETE /api/v1/namespaces/doomed/configmaps']);
  });

  it('a kind that refuses deletion: ContentDeletionFailed, no finalize, retried with back-off', async (t) => {
    const ctx = cluster(
      namespace(),
      [{ resource: 'configmaps', namespaced: true, verbs }],
      {},
      {
        'delete /api/v1/namespaces/doomed/configmaps': methodNotAllowed(),
        'list /api/v1/namespaces/doomed/configmaps': methodNotAllowed(),
      },
    );
    t.after(() => ctx.stop());
    ctx.clock.step(namespaceDeletionGracePeriodMs);
    await settle();
    // deletecollection and list not allowed: nothing can be seen to remain, so the namespace is finalized.
    assert.deepEqual(ctx.api.writes(), ['DELETE /api/v1/namespaces/doomed/configmaps', `UPDATE ${nsPath}/status`, `UPDATE ${nsPath}/finalize`]);
  });

  it('objects that survive without finalizers: upstream error in NamespaceDeletionContentFailure, retried', async (t) => {
    const stuck = { metadata: { name: 'stuck', namespace: 'doomed' } };
    const ctx = cluster(namespace(), [{ resource: 'configmaps', namespaced: true, verbs }], { '/api/v1/namespaces/doomed/configmaps': [stuck] });
    t.after(() => ctx.stop());
    ctx.clock.step(namespaceDeletionGracePeriodMs);
    await settle();
    assert.deepEqual(ctx.api.writes(), ['DELETE /api/v1/namespaces/doomed/configmaps', `UPDATE ${nsPath}/status`]);
    const conditions = summary(statusConditions(ctx));
    assert.deepEqual(conditions[2], [
      'NamespaceDeletionContentFailure',
      'True',
      'ContentDeletionFailed',
      'Failed to delete all resource types, 1 remaining: unexpected items still remain in namespace: doomed for gvr: /v1, Resource=configmaps',
    ]);
    // The failure retries with the rate limiter's back-off (5 ms first).
    ctx.clock.step(5);
    await settle();
    assert.equal(ctx.api.writes().filter((w) => w.startsWith('DELETE')).length, 2);
  });

  it('discovery failing: NamespaceDeletionDiscoveryFailure, no finalize', async (t) => {
    const ctx = cluster(namespace(), [], {}, { 'get /apis': methodNotAllowed() });
    t.after(() => ctx.stop());
    ctx.clock.step(namespaceDeletionGracePeriodMs);
    await settle();
    assert.deepEqual(ctx.api.writes(), [`UPDATE ${nsPath}/status`]);
    const first = summary(statusConditions(ctx))[0];
    assert.equal(first?.[1], 'True');
    assert.equal(first?.[2], 'DiscoveryFailed');
  });

  it('a group that cannot be discovered: the others are emptied anyway, the failure reported, no finalize', async (t) => {
    const ctx = cluster(namespace(), [{ resource: 'configmaps', namespaced: true, verbs }], {}, { 'get /apis/broken.example.com/v1': methodNotAllowed() });
    ctx.api.react((action) =>
      action.verb === 'get' && action.path === '/apis'
        ? {
            kind: 'APIGroupList',
            metadata: {},
            groups: [{ name: 'broken.example.com', preferredVersion: { groupVersion: 'broken.example.com/v1', version: 'v1' } }],
          }
        : undefined,
    );
    t.after(() => ctx.stop());
    ctx.clock.step(namespaceDeletionGracePeriodMs);
    await settle();
    assert.deepEqual(ctx.api.writes(), ['DELETE /api/v1/namespaces/doomed/configmaps', `UPDATE ${nsPath}/status`]);
    const first = summary(statusConditions(ctx))[0];
    assert.deepEqual(first?.slice(0, 3), ['NamespaceDeletionDiscoveryFailure', 'True', 'DiscoveryFailed']);
    assert.match(first?.[3] ?? '', /^unable to retrieve the complete list of server APIs: broken\.example\.com\/v1: /);
  });

  it('sets the phase Terminating first when it is not yet', async (t) => {
    const ctx = cluster(namespace({ status: { phase: 'Active' } }), [{ resource: 'configmaps', namespaced: true, verbs }]);
    t.after(() => ctx.stop());
    ctx.clock.step(namespaceDeletionGracePeriodMs);
    await settle();
    assert.equal(ctx.api.writes()[0], `UPDATE ${nsPath}/status`);
    assert.equal((ctx.api.actions.find((a) => a.verb === 'update')?.body as Namespace).status?.phase, 'Terminating');
  });
});
