import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConfigMap } from '../../apiserver/registry/core/configmap.ts';
import { conflict } from '../../shared/api/errors.ts';
import { settle, testContext, type TestContext } from '../framework/testing.ts';
import { startBootstrapSigner } from './bootstrapsigner.ts';
import { computeDetachedSignature } from './jws.ts';
import type { Secret } from './token-secret.ts';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const clusterInfoPath = '/api/v1/namespaces/kube-public/configmaps/cluster-info';
const kubeconfig = 'apiVersion: v1\nclusters:\n- cluster:\n    server: https://10.0.0.1:6443\n  name: ""\nkind: Config\n';

function token(id: string, data: Record<string, string> = {}, name = `bootstrap-token-${id}`): Secret {
  return {
    metadata: { name, namespace: 'kube-system', uid: `uid-${id}` },
    type: 'bootstrap.kubernetes.io/token',
    data: Object.fromEntries(
      Object.entries({ 'token-id': id, 'token-secret': `${id}0123456789`, 'usage-bootstrap-signing': 'true', ...data }).map(([k, v]) => [k, b64(v)]),
    ),
  };
}

const signatureOf = (id: string, content = kubeconfig): string => computeDetachedSignature(content, id, `${id}.${id}0123456789`);

function clusterInfo(data: Record<string, string> = { kubeconfig }): ConfigMap {
  return { metadata: { name: 'cluster-info', namespace: 'kube-public', resourceVersion: '5', uid: 'cm' }, data };
}

function started(configMap: ConfigMap | undefined, ...secrets: Secret[]): TestContext<unknown> {
  const ctx = testContext<unknown>({});
  if (configMap) ctx.informers.of<ConfigMap>('configmaps', 'kube-public').set(configMap);
  for (const secret of secrets) ctx.informers.of<Secret>('secrets', 'kube-system').set(secret);
  startBootstrapSigner(ctx);
  return ctx;
}

/** Lets written ConfigMaps come back through the informer, as the watch would bring them. */
function echoWrites(ctx: TestContext<unknown>): void {
  let version = 100;
  ctx.api.react((action) => {
    if (action.verb !== 'update') return undefined;
    const configMap = structuredClone(action.body as ConfigMap);
    configMap.metadata.resourceVersion = String(version++);
    setImmediate(() => ctx.informers.of<ConfigMap>('configmaps', 'kube-public').set(configMap));
    return configMap;
  });
}

/** The data of the last ConfigMap written. */
function written(ctx: TestContext<unknown>): Record<string, string> | undefined {
  const updates = ctx.api.actions.filter((a) => a.verb === 'update');
  return (updates.at(-1)?.body as ConfigMap | undefined)?.data;
}

describe('bootstrap signer', () => {
  it('adds one signature per signing token, keeping the other keys', async (t) => {
    const ctx = started(clusterInfo({ kubeconfig, other: 'kept' }), token('aaaaaa'), token('bbbbbb'));
    t.after(() => ctx.stop());
    await settle();
    assert.deepEqual(ctx.api.writes(), [`UPDATE ${clusterInfoPath}`]);
    assert.deepEqual(written(ctx), {
      kubeconfig,
      other: 'kept',
      'jws-kubeconfig-aaaaaa': signatureOf('aaaaaa'),
      'jws-kubeconfig-bbbbbb': signatureOf('bbbbbb'),
    });
    const body = ctx.api.actions[0]?.body as ConfigMap;
    assert.equal(body.metadata.resourceVersion, '5', 'the update is conditional on the cached version');
  });

  it('writes nothing when every signature is already right', async (t) => {
    const ctx = started(clusterInfo({ kubeconfig, 'jws-kubeconfig-aaaaaa': signatureOf('aaaaaa') }), token('aaaaaa'));
    t.after(() => ctx.stop());
    await settle();
    assert.deepEqual(ctx.api.writes(), []);
  });

  it('skips tokens that may not sign and drops their stale signatures', async (t) => {
    const ctx = started(
      clusterInfo({ kubeconfig, 'jws-kubeconfig-cccccc': 'stale', 'jws-kubeconfig-gone00': 'stale' }),
      token('aaaaaa', { 'usage-bootstrap-signing': 'false' }),
      token('bbbbbb', { expiration: '2025-01-01T00:00:00Z' }),
      token('cccccc', { expiration: 'not a time' }),
      token('dddddd', { 'token-id': 'eeeeee' }),
      token('ffffff', {}, 'token-ffffff'),
      token('gggggg', { 'token-secret': '' }),
    );
    t.after(() => ctx.stop());
    await settle();
    assert.deepEqual(ctx.api.writes(), [`UPDATE ${clusterInfoPath}`]);
    assert.deepEqual(written(ctx), { kubeconfig });
  });

  it('re-signs when the kubeconfig changes, and drops a deleted token', async (t) => {
    const ctx = started(clusterInfo(), token('aaaaaa'), token('bbbbbb'));
    t.after(() => ctx.stop());
    echoWrites(ctx);
    await settle();
    assert.equal(ctx.api.writes().length, 1);
    const changed = `${kubeconfig}# changed\n`;
    ctx.informers.of<ConfigMap>('configmaps', 'kube-public').set(clusterInfo({ ...written(ctx), kubeconfig: changed }));
    await settle();
    assert.equal(ctx.api.writes().length, 2);
    assert.deepEqual(written(ctx), {
      kubeconfig: changed,
      'jws-kubeconfig-aaaaaa': signatureOf('aaaaaa', changed),
      'jws-kubeconfig-bbbbbb': signatureOf('bbbbbb', changed),
    });
    ctx.informers.of<Secret>('secrets', 'kube-system').remove('kube-system/bootstrap-token-bbbbbb');
    await settle();
    assert.equal(ctx.api.writes().length, 3);
    assert.deepEqual(written(ctx), { kubeconfig: changed, 'jws-kubeconfig-aaaaaa': signatureOf('aaaaaa', changed) });
  });

  it('drops a signature when its token expires, on the clock', async (t) => {
    // The fake clock starts at 2026-01-01T00:00:00Z.
    const ctx = started(clusterInfo(), token('aaaaaa', { expiration: '2026-01-01T01:00:00Z' }), token('bbbbbb'));
    t.after(() => ctx.stop());
    echoWrites(ctx);
    await settle();
    assert.deepEqual(Object.keys(written(ctx) ?? {}).sort(), ['jws-kubeconfig-aaaaaa', 'jws-kubeconfig-bbbbbb', 'kubeconfig']);
    assert.equal(ctx.api.writes().length, 1);
    ctx.clock.step(3600 * 1000);
    await settle();
    assert.equal(ctx.api.writes().length, 2);
    assert.deepEqual(written(ctx), { kubeconfig, 'jws-kubeconfig-bbbbbb': signatureOf('bbbbbb') });
  });

  it('never creates cluster-info, and leaves one without a kubeconfig alone', async (t) => {
    const absent = started(undefined, token('aaaaaa'));
    t.after(() => absent.stop());
    const empty = started(clusterInfo({ other: 'x' }), token('aaaaaa'));
    t.after(() => empty.stop());
    await settle();
    assert.deepEqual(absent.api.writes(), []);
    assert.deepEqual(empty.api.writes(), []);
  });

  it('takes a conflict as "a newer ConfigMap is coming" rather than retrying', async (t) => {
    const ctx = started(clusterInfo(), token('aaaaaa'));
    t.after(() => ctx.stop());
    ctx.api.react((action) => {
      if (action.verb === 'update') throw conflict({ group: '', resource: 'configmaps' }, 'cluster-info', 'the object has been modified');
      return undefined;
    });
    await settle();
    ctx.clock.step(60_000);
    await settle();
    assert.deepEqual(ctx.api.writes(), [`UPDATE ${clusterInfoPath}`]);
  });

  it('retries other failures with back-off', async (t) => {
    const ctx = started(clusterInfo(), token('aaaaaa'));
    t.after(() => ctx.stop());
    let calls = 0;
    ctx.api.react((action) => {
      if (action.verb === 'update' && ++calls === 1) throw new Error('connection refused');
      return undefined;
    });
    await settle();
    assert.equal(ctx.api.writes().length, 1);
    ctx.clock.step(1000);
    await settle();
    assert.deepEqual(ctx.api.writes(), [`UPDATE ${clusterInfoPath}`, `UPDATE ${clusterInfoPath}`]);
  });
});
