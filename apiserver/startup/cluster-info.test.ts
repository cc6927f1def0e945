import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { parse } from 'yaml';
import { alreadyExists } from '../../shared/api/errors.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import { clusterInfoKubeconfig, ensureClusterInfo, type StoreLookup } from './cluster-info.ts';

const caPem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const logger = pino({ level: 'silent' });

/** Stores that record creates; `existing` names (`resource/name`) answer AlreadyExists. */
function recordingStores(existing: string[] = [], served = ['configmaps', 'roles', 'rolebindings']): { stores: StoreLookup; created: KubeObject[] } {
  const created: KubeObject[] = [];
  const stores: StoreLookup = (_group, resource) =>
    served.includes(resource)
      ? {
          create: async (_namespace, obj) => {
            if (existing.includes(`${resource}/${obj.metadata.name ?? ''}`)) throw alreadyExists({ group: '', resource }, obj.metadata.name ?? '');
            created.push(obj);
            return obj;
          },
        }
      : undefined;
  return { stores, created };
}

describe('cluster-info start-up step', () => {
  it("writes kubeadm's cluster-info kubeconfig: the cluster alone, unnamed", () => {
    const text = clusterInfoKubeconfig('https://10.0.0.1:6443', caPem);
    assert.equal(
      text,
      [
        'apiVersion: v1',
        'clusters:',
        '- cluster:',
        `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
        '    server: https://10.0.0.1:6443',
        '  name: ""',
        'contexts: null',
        'current-context: ""',
        'kind: Config',
        'preferences: {}',
        'users: null',
        '',
      ].join('\n'),
    );
    const cluster = parse(text).clusters[0].cluster;
    assert.equal(Buffer.from(cluster['certificate-authority-data'], 'base64').toString(), caPem);
  });

  it('creates the ConfigMap, and the Role and RoleBinding letting system:anonymous get it', async () => {
    const { stores, created } = recordingStores();
    await ensureClusterInfo(stores, 'https://127.0.0.1:6443', caPem, logger);
    assert.deepEqual(
      created.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`),
      [
        'ConfigMap kube-public/cluster-info',
        'Role kube-public/kubeadm:bootstrap-signer-clusterinfo',
        'RoleBinding kube-public/kubeadm:bootstrap-signer-clusterinfo',
      ],
    );
    assert.deepEqual(created[0]?.['data'], { kubeconfig: clusterInfoKubeconfig('https://127.0.0.1:6443', caPem) });
    assert.deepEqual(created[1]?.['rules'], [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'] }]);
    assert.deepEqual(created[2]?.['roleRef'], { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kubeadm:bootstrap-signer-clusterinfo' });
    assert.deepEqual(created[2]?.['subjects'], [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'system:anonymous' }]);
  });

  it('leaves existing objects as they are, and skips RBAC when its API is off', async () => {
    const { stores, created } = recordingStores(['configmaps/cluster-info'], ['configmaps']);
    await ensureClusterInfo(stores, 'https://127.0.0.1:6443', caPem, logger);
    assert.deepEqual(created, []);
  });

  it('fails (for the caller to retry) on any other error', async () => {
    const stores: StoreLookup = () => ({
      create: async () => {
        throw new Error('etcd unavailable');
      },
    });
    await assert.rejects(ensureClusterInfo(stores, 'https://127.0.0.1:6443', caPem, logger), /etcd unavailable/);
  });
});
