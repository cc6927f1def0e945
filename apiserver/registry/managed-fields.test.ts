import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../shared/api/errors.ts';
import { fieldErrorString } from '../../shared/api/field.ts';
import type { KubeObject, ManagedFieldsEntry } from '../../shared/api/types.ts';
import { configMapDefinition } from './core/configmap.ts';
import { nodeDefinition } from './core/node/node.ts';
import { csrDefinition } from './certificates/csr/csr.ts';
import type { ResourceDefinition } from './definition.ts';
import type { FieldManagerRequest } from './field-manager.ts';
import { TimeSlice } from '../../shared/apply/time-slice.ts';
import {
  createFieldManager,
  decodeManagedFields,
  encodeManagedFields,
  ignoreManagedFieldsTimestamps,
  lastAppliedAnnotation,
  invalidManagedFieldsWarning,
  managerFromUserAgent,
  patchOptionsErrors,
  resetFieldsFor,
} from './managed-fields.ts';

const fm = createFieldManager();
const cmDef = configMapDefinition as unknown as ResourceDefinition;
const nodeDef = nodeDefinition as unknown as ResourceDefinition;

const T1 = '2024-05-01T10:00:00Z';
const T2 = '2024-05-01T11:00:00Z';
const T3 = '2024-05-01T12:00:00Z';

function req(manager: string, now: string, definition = cmDef, subresource = ''): FieldManagerRequest {
  return { definition, manager, subresource, now: new Date(now) };
}

function applyReq(manager: string, now: string, force = false, definition = cmDef, subresource = ''): FieldManagerRequest & { force: boolean } {
  return { ...req(manager, now, definition, subresource), force };
}

function configMap(data: Record<string, string>, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', ...metadata }, data };
}

/** What the store does around the field manager: a stored object has a uid. */
function stored(obj: KubeObject): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, uid: 'uid-1' } };
}

async function statusOf(fn: () => unknown): Promise<StatusError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  assert.fail('expected a StatusError');
}

const entry = (e: ManagedFieldsEntry): ManagedFieldsEntry => e;

test('create: the creator owns what it set, new maps with "."', async () => {
  const created = await fm.update(null, configMap({ a: '1', b: '2' }, { labels: { x: 'y' }, annotations: { note: 'n' } }), req('kubectl-create', T1));
  assert.deepEqual(created.metadata.managedFields, [
    entry({
      manager: 'kubectl-create',
      operation: 'Update',
      apiVersion: 'v1',
      time: T1,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:data': { '.': {}, 'f:a': {}, 'f:b': {} },
        'f:metadata': { 'f:annotations': { '.': {}, 'f:note': {} }, 'f:labels': { '.': {}, 'f:x': {} } },
      },
    }),
  ]);
  // Nothing but managedFields changes.
  const { managedFields: _, ...meta } = created.metadata;
  assert.deepEqual({ ...created, metadata: meta }, configMap({ a: '1', b: '2' }, { labels: { x: 'y' }, annotations: { note: 'n' } }));
});

test('create without a manager records "unknown"', async () => {
  const created = await fm.update(null, configMap({ a: '1' }), req('', T1));
  assert.equal(created.metadata.managedFields?.[0]?.manager, 'unknown');
});

test('create by apply: the applier owns what it applied, structs without "."', async () => {
  const applied = await fm.apply(null, configMap({ a: '1' }, { labels: { x: 'y' } }), applyReq('mgr', T1));
  assert.deepEqual(applied, {
    ...configMap({ a: '1' }, { labels: { x: 'y' } }),
    metadata: {
      name: 'cm',
      namespace: 'default',
      labels: { x: 'y' },
      managedFields: [
        entry({
          manager: 'mgr',
          operation: 'Apply',
          apiVersion: 'v1',
          time: T1,
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } } },
        }),
      ],
    },
  });
});

/** mgr applied a and b at T1, kubectl-edit changed a at T2. */
async function appliedThenEdited(): Promise<KubeObject> {
  const applied = stored(await fm.apply(null, configMap({ a: '1', b: '2' }), applyReq('mgr', T1)));
  return await fm.update(applied, { ...applied, data: { a: '9', b: '2' } }, req('kubectl-edit', T2));
}

test('an update takes ownership of what it changes; entries sort Apply first, then by time', async () => {
  const edited = await appliedThenEdited();
  assert.deepEqual(edited.metadata.managedFields, [
    entry({ manager: 'mgr', operation: 'Apply', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:b': {} } } }),
    entry({ manager: 'kubectl-edit', operation: 'Update', apiVersion: 'v1', time: T2, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }),
  ]);
});

test('a conflicting apply fails with upstream message and causes', async () => {
  const edited = await appliedThenEdited();
  const err = await statusOf(() => fm.apply(edited, configMap({ a: '1', b: '2' }), applyReq('mgr', T3)));
  assert.equal(err.code, 409);
  assert.deepEqual(err.status, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.a',
    reason: 'Conflict',
    details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using v1', field: '.data.a' }] },
    code: 409,
  });
});

test('several conflicts: grouped by manager, managers in order', async () => {
  const edited = stored(await appliedThenEdited());
  const one = await statusOf(() => fm.apply(edited, configMap({ b: 'x', c: '3' }), applyReq('other', T3)));
  assert.equal(one.status.message, 'Apply failed with 1 conflict: conflict with "mgr": .data.b');
  const two = await statusOf(() => fm.apply(edited, configMap({ a: 'x', b: 'y' }), applyReq('other', T3)));
  assert.equal(two.status.message, 'Apply failed with 2 conflicts: conflicts with "kubectl-edit" using v1:\n- .data.a\nconflicts with "mgr":\n- .data.b');
  assert.deepEqual(two.status.details?.causes, [
    { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using v1', field: '.data.a' },
    { reason: 'FieldManagerConflict', message: 'conflict with "mgr"', field: '.data.b' },
  ]);
  const created = stored(await fm.apply(null, configMap({ a: '1', b: '2' }), applyReq('mgr', T1)));
  const same = await statusOf(() => fm.apply(created, configMap({ a: 'x', b: 'y' }), applyReq('other', T3)));
  assert.equal(same.status.message, 'Apply failed with 2 conflicts: conflicts with "mgr":\n- .data.a\n- .data.b');
});

test('force takes the fields over; an entry left empty disappears', async () => {
  const edited = stored(await appliedThenEdited());
  const forced = await fm.apply(edited, configMap({ a: '1', b: '2' }), applyReq('mgr', T3, true));
  assert.deepEqual(forced.data, { a: '1', b: '2' });
  assert.deepEqual(forced.metadata.managedFields, [
    entry({ manager: 'mgr', operation: 'Apply', apiVersion: 'v1', time: T3, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } }),
  ]);
});

test('an applier sharing a value neither conflicts nor changes the object; its time is then not set', async () => {
  const created = stored(await fm.apply(null, configMap({ a: '1' }), applyReq('one', T1)));
  const shared = await fm.apply(created, configMap({ a: '1' }), applyReq('two', T2));
  assert.deepEqual(shared.data, { a: '1' });
  assert.deepEqual(shared.metadata.managedFields, [
    entry({ manager: 'two', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }),
    entry({ manager: 'one', operation: 'Apply', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }),
  ]);
  // Re-applying the same configuration changes nothing at all.
  const again = await fm.apply(stored(shared), configMap({ a: '1' }), applyReq('one', T3));
  assert.deepEqual(again.metadata.managedFields, shared.metadata.managedFields);
});

test('an apply removes what its applier no longer applies, unless another manager owns it', async () => {
  const created = stored(await fm.apply(null, configMap({ a: '1', b: '2', c: '3' }), applyReq('mgr', T1)));
  const shared = stored(await fm.apply(created, configMap({ c: '3' }), applyReq('other', T2)));
  const pruned = await fm.apply(shared, configMap({ a: '1' }), applyReq('mgr', T3));
  assert.deepEqual(pruned.data, { a: '1', c: '3' });
  assert.deepEqual(
    pruned.metadata.managedFields?.map((e) => [e.manager, e.fieldsV1]),
    [
      ['other', { 'f:data': { 'f:c': {} } }],
      ['mgr', { 'f:data': { 'f:a': {} } }],
    ],
  );
});

test('an update that changes nothing adds no entry and keeps times', async () => {
  const created = stored(await fm.update(null, configMap({ a: '1' }), req('creator', T1)));
  const same = await fm.update(created, created, req('someone', T2));
  assert.deepEqual(same.metadata.managedFields, created.metadata.managedFields);
  const removal = await fm.update(created, { ...created, data: {} }, req('someone', T2));
  // A removal takes the field from its owner but gives the remover nothing.
  assert.deepEqual(removal.metadata.managedFields, [
    entry({ manager: 'creator', operation: 'Update', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }),
  ]);
});

test('status subresource: tracked separately, reset fields not owned, conflicts name the subresource', async () => {
  const node: KubeObject = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1', labels: { zone: 'a' } },
    spec: { podCIDR: '10.0.0.0/24' },
    status: { capacity: { cpu: '4' } },
  };
  // The main resource resets status: a create records no status ownership.
  const created = stored(await fm.update(null, node, req('kubelet', T1, nodeDef)));
  assert.deepEqual(created.metadata.managedFields?.[0]?.fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:zone': {} } }, 'f:spec': { 'f:podCIDR': {} } });

  const ready = { ...created, status: { capacity: { cpu: '4' }, conditions: [{ type: 'Ready', status: 'True' }] } };
  const heartbeat = stored(await fm.update(created, ready, req('kubelet', T2, nodeDef, 'status')));
  assert.deepEqual(heartbeat.metadata.managedFields, [
    created.metadata.managedFields?.[0],
    entry({
      manager: 'kubelet',
      operation: 'Update',
      apiVersion: 'v1',
      time: T2,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:conditions': { '.': {}, 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } } } },
      subresource: 'status',
    }),
  ]);

  // A main-resource write that changes status takes nothing from the status writer.
  const viaMain = await fm.update(heartbeat, { ...heartbeat, status: { conditions: [{ type: 'Ready', status: 'False' }] } }, req('kubectl', T3, nodeDef));
  assert.deepEqual(viaMain.metadata.managedFields, heartbeat.metadata.managedFields);

  // Applying status through the subresource conflicts with the status writer.
  const err = await statusOf(() =>
    fm.apply(
      heartbeat,
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { conditions: [{ type: 'Ready', status: 'False' }] } },
      applyReq('ctl', T3, false, nodeDef, 'status'),
    ),
  );
  assert.equal(
    err.status.message,
    'Apply failed with 1 conflict: conflict with "kubelet" with subresource "status" using v1: .status.conditions[type="Ready"].status',
  );
});

test('reset fields: upstream rules, with per-kind exceptions', () => {
  const show = (def: ResourceDefinition, sub: string): string => resetFieldsFor(def, sub)?.toString() ?? '';
  assert.equal(show(cmDef, ''), '');
  assert.equal(show(nodeDef, ''), '.status');
  assert.equal(show(nodeDef, 'status'), '.spec');
  const csr = csrDefinition as unknown as ResourceDefinition;
  assert.equal(show(csr, ''), '.spec\n.status');
  assert.equal(show(csr, 'approval'), '.spec\n.status.certificate');
});

test('managedFields sent back unchanged are kept; valid new ones replace them; invalid ones are ignored', async () => {
  const edited = stored(await appliedThenEdited());
  const kept = await fm.update(edited, { ...edited, metadata: { ...edited.metadata, labels: { l: 'v' } } }, req('labeler', T3));
  assert.deepEqual(
    kept.metadata.managedFields?.map((e) => e.manager),
    ['mgr', 'kubectl-edit', 'labeler'],
  );

  const replacement = [
    entry({ manager: 'someone', operation: 'Update', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:b': {} } } }),
  ];
  const replaced = await fm.update(edited, { ...edited, metadata: { ...edited.metadata, managedFields: replacement } }, req('writer', T3));
  assert.deepEqual(replaced.metadata.managedFields, replacement);

  const invalid = [{ manager: 'x', operation: 'Patch', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }] as unknown as ManagedFieldsEntry[];
  const ignored = await fm.update(edited, { ...edited, metadata: { ...edited.metadata, managedFields: invalid } }, req('writer', T3));
  assert.deepEqual(ignored.metadata.managedFields, edited.metadata.managedFields);

  // Subresource writes always start from the stored managedFields.
  const viaStatus = await fm.update(edited, { ...edited, metadata: { ...edited.metadata, managedFields: replacement } }, req('writer', T3, cmDef, 'status'));
  assert.deepEqual(viaStatus.metadata.managedFields, edited.metadata.managedFields);
});

test('a reset ([{}] or []) clears managedFields before the write, which leaves the object untracked', async () => {
  const edited = stored(await appliedThenEdited());
  for (const reset of [[{}], []] as ManagedFieldsEntry[][]) {
    const cleared = await fm.update(edited, { ...edited, data: { a: 'changed' }, metadata: { ...edited.metadata, managedFields: reset } }, req('writer', T3));
    assert.equal(cleared.metadata.managedFields, undefined);
    assert.deepEqual(cleared.data, { a: 'changed' });
  }
  // An untracked object stays untracked through updates...
  const untracked = stored(configMap({ a: '1' }));
  assert.equal((await fm.update(untracked, { ...untracked, data: { a: '2' } }, req('writer', T3))).metadata.managedFields, undefined);
  // ...and its first apply hands its existing fields to before-first-apply.
  const applied = await fm.apply(untracked, configMap({ b: '2' }), applyReq('mgr', T3));
  assert.deepEqual(applied.metadata.managedFields, [
    entry({ manager: 'mgr', operation: 'Apply', apiVersion: 'v1', time: T3, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:b': {} } } }),
    entry({
      manager: 'before-first-apply',
      operation: 'Update',
      apiVersion: 'v1',
      time: T3,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
    }),
  ]);
});

test('more than 10 update entries: the oldest are merged into ancient-changes', async () => {
  const managedFields: ManagedFieldsEntry[] = [];
  const data: Record<string, string> = {};
  for (let i = 0; i < 10; i++) {
    data[`k${i}`] = 'v';
    managedFields.push({
      manager: `m${i}`,
      operation: 'Update',
      apiVersion: 'v1',
      time: `2024-01-01T00:00:0${i}Z`,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { [`f:k${i}`]: {} } },
    });
  }
  const live = stored(configMap(data, { managedFields }));
  const updated = await fm.update(live, { ...live, data: { ...data, k10: 'v' } }, req('m10', T1));
  const entries = updated.metadata.managedFields ?? [];
  assert.equal(entries.length, 10);
  assert.deepEqual(entries[0], {
    manager: 'ancient-changes',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2024-01-01T00:00:01Z',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:data': { 'f:k0': {}, 'f:k1': {} } },
  });
  assert.deepEqual(
    entries.map((e) => e.manager),
    ['ancient-changes', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10'],
  );
});

test('apply errors: wrong kind or version (400), managedFields in the body (400), fields the schema lacks (400)', async () => {
  const wrongKind = await statusOf(() => fm.apply(null, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cm' } }, applyReq('mgr', T1)));
  assert.equal(wrongKind.code, 400);
  assert.equal(wrongKind.status.reason, 'BadRequest');
  assert.equal(wrongKind.status.message, 'invalid object type: /v1, Kind=Secret');
  const wrongVersion = await statusOf(() => fm.apply(null, { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'cm' } }, applyReq('mgr', T1)));
  assert.equal(wrongVersion.status.message, 'invalid object type: apps/v1, Kind=ConfigMap');
  const missing = await statusOf(() => fm.apply(null, { metadata: { name: 'cm' } }, applyReq('mgr', T1)));
  assert.equal(missing.status.message, 'invalid object type: /, Kind=');

  const withManaged = await statusOf(() => fm.apply(null, configMap({}, { managedFields: [] }), applyReq('mgr', T1)));
  assert.equal(withManaged.code, 400);
  assert.equal(withManaged.status.message, 'metadata.managedFields must be nil');

  const unknown = await statusOf(() => fm.apply(null, { ...configMap({ a: '1' }), foo: 1 }, applyReq('mgr', T1)));
  // Upstream answers 500 here (kubernetes#139253); the client's mistake is a 400 with the same text.
  assert.equal(unknown.code, 400);
  assert.equal(unknown.status.reason, 'BadRequest');
  assert.equal(unknown.status.message, 'failed to create typed patch object (default/cm; /v1, Kind=ConfigMap): .foo: field not declared in schema');
  const duplicate = await statusOf(() =>
    fm.apply(null, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: { podCIDRs: ['a', 'a'] } }, applyReq('mgr', T1, false, nodeDef)),
  );
  assert.equal(duplicate.status.message, 'failed to create typed patch object (/n; /v1, Kind=Node): .spec.podCIDRs: duplicate entries for key [="a"]');
});

test('kubectl server-side apply takes over fields it applied client-side, and refreshes the annotation', async () => {
  const lastApplied = '{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"cm","namespace":"default"}}\n';
  const live = stored(
    configMap(
      { a: '1' },
      {
        annotations: { [lastAppliedAnnotation]: lastApplied },
        managedFields: [
          {
            manager: 'kubectl-client-side-apply',
            operation: 'Update',
            apiVersion: 'v1',
            time: T1,
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:annotations': { '.': {}, [`f:${lastAppliedAnnotation}`]: {} } } },
          },
        ],
      },
    ),
  );
  const config = configMap({ a: '2' });
  const other = await statusOf(() => fm.apply(live, config, applyReq('someone', T2)));
  assert.equal(other.status.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a');

  const upgraded = await fm.apply(live, config, applyReq('kubectl', T2));
  assert.deepEqual(upgraded.data, { a: '2' });
  assert.equal(
    upgraded.metadata.annotations?.[lastAppliedAnnotation],
    '{"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"}}\n',
  );
  assert.deepEqual(
    upgraded.metadata.managedFields?.map((e) => [e.manager, e.fieldsV1]),
    [
      ['kubectl', { 'f:data': { 'f:a': {} } }],
      // The client-side applier keeps the map it created, not the entry it lost.
      ['kubectl-client-side-apply', { 'f:data': {}, 'f:metadata': { 'f:annotations': { '.': {}, [`f:${lastAppliedAnnotation}`]: {} } } }],
    ],
  );

  // A value changed since the client-side apply is not kubectl's to take.
  const drifted = stored({ ...live, data: { a: 'drift' } });
  assert.equal((await statusOf(() => fm.apply(drifted, config, applyReq('kubectl', T2)))).code, 409);
});

test('managedFields decode and encode as upstream: checks, identifiers, order, no entries at all', () => {
  assert.throws(() => decodeManagedFields([{ operation: 'Patch', apiVersion: 'v1', fieldsType: 'FieldsV1' }]), /operation must be `Apply` or `Update`/);
  assert.throws(() => decodeManagedFields([{ operation: 'Apply', fieldsType: 'FieldsV1' }]), /apiVersion must not be empty/);
  assert.throws(() => decodeManagedFields([{ operation: 'Apply', apiVersion: 'v1' }]), /missing fieldsType in managed fields entry 0/);
  assert.throws(
    () => decodeManagedFields([{ operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV2' }]),
    /invalid fieldsType "FieldsV2" in managed fields entry 0/,
  );
  assert.throws(
    () => decodeManagedFields([{ operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'k:{bad': {} } }]),
    /error decoding versioned set/,
  );

  const entries: ManagedFieldsEntry[] = [
    { manager: 'foo', operation: 'Update', apiVersion: 'v1beta1', time: '2011-12-13T14:15:16Z', fieldsType: 'FieldsV1', fieldsV1: { 'i:5': { 'f:i': {} } } },
    { manager: 'foo', operation: 'Update', apiVersion: 'v1', time: '2001-02-03T04:05:06Z', fieldsType: 'FieldsV1', fieldsV1: { 'v:3': { 'f:alsoPi': {} } } },
    { manager: 'foo', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } }, subresource: 'scale' },
    { manager: 'bar', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:a': {} } },
  ];
  const round = encodeManagedFields(decodeManagedFields(entries));
  assert.deepEqual(round, [entries[3], entries[2], entries[1], entries[0]]);
  // Times are normalized to UTC seconds.
  const normalized = encodeManagedFields(decodeManagedFields([{ ...entries[3], time: '2024-05-01T12:00:00.75+02:00' }]));
  assert.equal(normalized?.[0]?.time, '2024-05-01T10:00:00Z');
  assert.equal(encodeManagedFields(decodeManagedFields([])), undefined);
});

test('managerFromUserAgent: the prefix before "/", printable, at most 128 bytes', () => {
  assert.equal(managerFromUserAgent('kubectl/v1.32.0 (linux/amd64) kubernetes/abcdef'), 'kubectl');
  assert.equal(managerFromUserAgent('kube-controller-manager/v1.32.0 (linux/amd64) kubernetes/abc/system:serviceaccount:x'), 'kube-controller-manager');
  assert.equal(managerFromUserAgent('my\tclient\x00 app'), 'myclient app');
  assert.equal(managerFromUserAgent(undefined), '');
  assert.equal(managerFromUserAgent('x'.repeat(200)), 'x'.repeat(128));
  assert.equal(managerFromUserAgent('é'.repeat(100)), 'é'.repeat(64));
});

test('patch options: apply needs a field manager; force is for apply only', () => {
  assert.deepEqual(patchOptionsErrors(true, '', false).map(fieldErrorString), ['fieldManager: Required value: is required for apply patch']);
  assert.deepEqual(patchOptionsErrors(true, 'kubectl', true), []);
  assert.deepEqual(patchOptionsErrors(false, '', true).map(fieldErrorString), ['force: Forbidden: may not be specified for non-apply patch']);
  assert.deepEqual(patchOptionsErrors(false, '', false), []);
});

test('ignoreManagedFieldsTimestamps reverts times when nothing else changed', async () => {
  const old = stored(await fm.update(null, configMap({ a: '1' }), req('w', T1)));
  const rewritten = await fm.update(old, { ...old, metadata: { ...old.metadata, managedFields: undefined } }, req('w', T2));
  // Simulate a write whose only change is a newer time.
  rewritten.metadata.managedFields = (old.metadata.managedFields ?? []).map((e) => ({ ...e, time: T2 }));
  ignoreManagedFieldsTimestamps(rewritten, old);
  assert.equal(rewritten.metadata.managedFields?.[0]?.time, T1);
  const changed: KubeObject = {
    ...old,
    data: { a: '2' },
    metadata: { ...old.metadata, managedFields: (old.metadata.managedFields ?? []).map((e) => ({ ...e, time: T2 })) },
  };
  ignoreManagedFieldsTimestamps(changed, old);
  assert.equal(changed.metadata.managedFields?.[0]?.time, T2);
});

test('invalidManagedFieldsWarning: upstream warning text for undecodable managedFields', () => {
  assert.equal(invalidManagedFieldsWarning([{ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1' }]), undefined);
  assert.equal(
    invalidManagedFieldsWarning([{ manager: 'm', operation: 'Patch', apiVersion: 'v1', fieldsType: 'FieldsV1' }]),
    '.metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: operation must be `Apply` or `Update`',
  );
});

test('with a slice, the field manager yields between its passes and computes the same', async () => {
  // Every boundary of a slice with no budget yields: the result must not depend on where it does.
  let clock = 0;
  const slice = new TimeSlice(0, () => clock++);
  const data = (prefix: string): Record<string, string> => Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${prefix}${i}`, String(i)]));
  const run = async (sliced: TimeSlice | undefined): Promise<unknown[]> => {
    const at = <T extends FieldManagerRequest>(r: T): T => (sliced ? { ...r, slice: sliced } : r);
    const created = stored(await fm.update(null, configMap(data('a')), at(req('creator', T1))));
    const updated = stored(await fm.update(created, { ...created, data: { ...data('a'), a0: 'x' } }, at(req('editor', T2))));
    const applied = stored(await fm.apply(updated, configMap({ ...data('a'), a1: 'y' }), at(applyReq('app', T3, true))));
    const again = await fm.apply(applied, configMap(data('b')), at(applyReq('app', T3)));
    const conflict = await statusOf(() => fm.apply(applied, configMap({ a1: 'z' }), at(applyReq('other', T3))));
    return [created, updated, applied, again, conflict.status];
  };
  const plain = await run(undefined);
  const sliced = await run(slice);
  assert.deepEqual(sliced, plain);
  // At least one yield per pass of every call: decoding, comparing, set operations, encoding.
  assert.ok(slice.yields >= 5 * 4, `${slice.yields} yields`);
});
