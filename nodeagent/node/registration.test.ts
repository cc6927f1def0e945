import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { alreadyExists } from '../../shared/api/errors.ts';
import { deepCopy, type KubeObject } from '../../shared/api/types.ts';
import { FakeClock } from '../../shared/client/clock.ts';
import { RecordingApiClient, settle } from '../../shared/client/testing.ts';
import { defaultKubeletConfiguration } from '../config/defaults.ts';
import type { KubeletConfiguration } from '../config/fields.ts';
import { controllerManagedAttachDetach, initialNode, nodesPath, reconcilePatch, registerNode, type NodeIdentity } from './registration.ts';
import type { NodeStatus } from './status.ts';

const logger = pino({ level: 'silent' });
const identity: NodeIdentity = { name: 'node-1', hostname: 'node-1.example', operatingSystem: 'linux', architecture: 'arm64' };
const ownLabels = {
  'kubernetes.io/hostname': 'node-1.example',
  'kubernetes.io/os': 'linux',
  'kubernetes.io/arch': 'arm64',
  'beta.kubernetes.io/os': 'linux',
  'beta.kubernetes.io/arch': 'arm64',
};

function config(overrides: Partial<KubeletConfiguration> = {}): KubeletConfiguration {
  return { ...defaultKubeletConfiguration({}), ...overrides };
}

function existingNode(labels: Record<string, string>, annotations: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'uid-1', resourceVersion: '7', labels, annotations }, spec: {} };
}

describe('initialNode', () => {
  it('carries the default labels, the --node-labels, the attach/detach annotation, no taints and no providerID by default', () => {
    const node = initialNode(identity, config(), { 'node-role.kubernetes.io/worker': '', zone: 'a' });
    assert.deepEqual(node, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'node-1',
        labels: { 'node-role.kubernetes.io/worker': '', zone: 'a', ...ownLabels },
        annotations: { [controllerManagedAttachDetach]: 'true' },
      },
      spec: {},
    });
  });

  it('registers with the configured taints (empty fields left out) and providerID', () => {
    const node = initialNode(
      identity,
      config({
        providerID: 'corral://node-1',
        registerWithTaints: [
          { key: 'dedicated', value: 'infra', effect: 'NoSchedule', timeAdded: null },
          { key: 'node.example/maintenance', value: '', effect: 'NoExecute', timeAdded: null },
        ],
      }),
      {},
    );
    assert.deepEqual(node['spec'], {
      providerID: 'corral://node-1',
      taints: [
        { key: 'dedicated', value: 'infra', effect: 'NoSchedule' },
        { key: 'node.example/maintenance', effect: 'NoExecute' },
      ],
    });
  });

  it('carries the status it is given, as the kubelet creates its Node with its status set', () => {
    const status: NodeStatus = {
      capacity: { cpu: '2' },
      allocatable: { cpu: '2' },
      conditions: [],
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {},
    };
    assert.deepEqual(initialNode(identity, config(), {}, status)['status'], status);
    assert.equal('status' in initialNode(identity, config(), {}), false);
  });

  it("lets --node-labels override the default labels, as upstream's initialNode does", () => {
    const node = initialNode(identity, config(), { 'kubernetes.io/hostname': 'custom-name' });
    assert.equal(node.metadata.labels?.['kubernetes.io/hostname'], 'custom-name');
  });
});

describe('reconcilePatch', () => {
  it('is null when the labels and annotation are already in line, whatever else the Node carries', () => {
    const node = existingNode({ ...ownLabels, team: 'x' }, { [controllerManagedAttachDetach]: 'true', note: 'y' });
    assert.equal(reconcilePatch(node, identity), null);
  });

  it('patches only the labels that differ', () => {
    const node = existingNode(
      { ...ownLabels, 'kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/arch': 'amd64', team: 'x' },
      { [controllerManagedAttachDetach]: 'true' },
    );
    assert.deepEqual(reconcilePatch(node, identity), { metadata: { labels: { 'kubernetes.io/arch': 'arm64', 'beta.kubernetes.io/arch': 'arm64' } } });
  });

  it('patches only the annotation when it is missing or not "true"', () => {
    assert.deepEqual(reconcilePatch(existingNode(ownLabels, { [controllerManagedAttachDetach]: 'false' }), identity), {
      metadata: { annotations: { [controllerManagedAttachDetach]: 'true' } },
    });
    const bare: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } };
    assert.deepEqual(reconcilePatch(bare, identity), { metadata: { labels: ownLabels, annotations: { [controllerManagedAttachDetach]: 'true' } } });
  });
});

describe('registerNode', () => {
  const nodePath = `${nodesPath}/node-1`;

  it('creates the Node and resolves to it as stored', async () => {
    const api = new RecordingApiClient();
    api.react((action) =>
      action.verb === 'create' ? { ...(action.body as KubeObject), metadata: { ...(action.body as KubeObject).metadata, uid: 'uid-new' } } : undefined,
    );
    const node = initialNode(identity, config(), {});
    const { node: stored, created } = await registerNode(node, identity, { api, clock: new FakeClock(), logger, signal: new AbortController().signal });
    assert.equal(stored.metadata.uid, 'uid-new');
    assert.equal(created, true);
    assert.deepEqual(api.writes(), [`CREATE ${nodesPath}`]);
    assert.deepEqual(api.actions[0]?.body, node);
  });

  function apiWith(existing: KubeObject): RecordingApiClient {
    const api = new RecordingApiClient();
    api.react((action) => {
      if (action.verb === 'create') throw alreadyExists({ group: '', resource: 'nodes' }, 'node-1');
      if (action.verb === 'get' && action.path === nodePath) return deepCopy(existing);
      if (action.verb === 'patch' && action.path === nodePath) return { ...deepCopy(existing), patched: action.body };
      return undefined;
    });
    return api;
  }

  it('leaves an existing Node in line alone', async () => {
    const existing = existingNode({ ...ownLabels, team: 'x' }, { [controllerManagedAttachDetach]: 'true' });
    const api = apiWith(existing);
    const stored = await registerNode(initialNode(identity, config(), {}), identity, {
      api,
      clock: new FakeClock(),
      logger,
      signal: new AbortController().signal,
    });
    assert.deepEqual(stored, { node: existing, created: false });
    assert.deepEqual(
      api.actions.map((a) => `${a.verb} ${a.path}`),
      [`create ${nodesPath}`, `get ${nodePath}`],
    );
  });

  it('reconciles an existing Node by a merge patch of what differs', async () => {
    const api = apiWith(existingNode({ ...ownLabels, 'kubernetes.io/hostname': 'old-name' }, {}));
    await registerNode(initialNode(identity, config(), {}), identity, { api, clock: new FakeClock(), logger, signal: new AbortController().signal });
    assert.deepEqual(
      api.actions.map((a) => `${a.verb} ${a.path}`),
      [`create ${nodesPath}`, `get ${nodePath}`, `patch ${nodePath}`],
    );
    const patch = api.actions[2];
    assert.equal(patch?.patchType, 'merge');
    assert.deepEqual(patch?.body, {
      metadata: { labels: { 'kubernetes.io/hostname': 'node-1.example' }, annotations: { [controllerManagedAttachDetach]: 'true' } },
    });
  });

  it('retries failed attempts from 100 ms, doubling up to 7 s, until one succeeds', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const api = new RecordingApiClient();
    const attempts: number[] = [];
    let failures = 9;
    api.react((action) => {
      if (action.verb !== 'create') return undefined;
      attempts.push(clock.now() - start);
      if (failures-- > 0) throw new Error('connection refused');
      return action.body;
    });
    let stored: KubeObject | undefined;
    void registerNode(initialNode(identity, config(), {}), identity, { api, clock, logger, signal: new AbortController().signal }).then(
      (registered) => (stored = registered.node),
    );
    await settle();
    for (let i = 0; i < 300 && !stored; i++) {
      clock.step(100);
      await settle();
    }
    assert.deepEqual(attempts, [0, 100, 300, 700, 1500, 3100, 6300, 12700, 19700, 26700]);
    assert.equal(stored?.metadata.name, 'node-1');
  });

  it('gives up when the signal aborts', async () => {
    const clock = new FakeClock();
    const api = new RecordingApiClient();
    api.react(() => {
      throw new Error('connection refused');
    });
    const controller = new AbortController();
    let failure: unknown;
    const done = registerNode(initialNode(identity, config(), {}), identity, { api, clock, logger, signal: controller.signal }).catch(
      (err: unknown) => (failure = err),
    );
    await settle();
    controller.abort();
    await settle();
    clock.step(100);
    await done;
    assert.ok(failure instanceof Error);
    assert.equal(failure.message, 'connection refused');
  });
});
