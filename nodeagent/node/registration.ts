/**
 * Registering the Node (the kubelet's registerWithAPIServer): the Node object as the kubelet first
 * writes it, created, or, when a Node of that name exists (a restart, or an administrator made it),
 * reconciled: the well-known labels and the attach/detach annotation brought to what this agent
 * says, by a merge patch, nothing else touched. Attempts are retried from 100 ms doubling to 7 s
 * until the API answers.
 */
import type { Logger } from 'pino';
import { isStatusError } from '../../shared/api/errors.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import type { ApiClient } from '../../shared/client/api-client.ts';
import { sleep, type Clock } from '../../shared/client/clock.ts';
import type { KubeletConfiguration } from '../config/fields.ts';
import type { NodeStatus } from './status.ts';

export const nodesPath = '/api/v1/nodes';
export const controllerManagedAttachDetach = 'volumes.kubernetes.io/controller-managed-attach-detach';

export interface NodeIdentity {
  name: string;
  hostname: string;
  operatingSystem: string;
  architecture: string;
}

/** The labels a kubelet owns on its Node: hostname, OS and architecture (stable and beta names). */
export function defaultLabels(identity: NodeIdentity): Record<string, string> {
  return {
    'kubernetes.io/hostname': identity.hostname,
    'kubernetes.io/os': identity.operatingSystem,
    'kubernetes.io/arch': identity.architecture,
    'beta.kubernetes.io/os': identity.operatingSystem,
    'beta.kubernetes.io/arch': identity.architecture,
  };
}

/**
 * The Node as first registered: labels (`--node-labels` over the defaults' absence), taints,
 * providerID, and its status as the agent sees it now: the kubelet's initialNode sets the status
 * before the create, so the Node is never seen without conditions and the first status write is
 * not needed (a second write right after the create raced the node lifecycle controller's first
 * taint patch, which then failed on a stale resourceVersion).
 */
export function initialNode(identity: NodeIdentity, config: KubeletConfiguration, nodeLabels: Record<string, string>, status?: NodeStatus): KubeObject {
  const spec: Record<string, unknown> = {};
  if (config.providerID) spec['providerID'] = config.providerID;
  if (config.registerWithTaints.length > 0)
    spec['taints'] = config.registerWithTaints.map((t) => Object.fromEntries(Object.entries(t).filter(([, v]) => v !== null && v !== '')));
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: identity.name,
      // --node-labels last, as upstream: an administrator's label wins over a default one.
      labels: { ...defaultLabels(identity), ...nodeLabels },
      annotations: { [controllerManagedAttachDetach]: 'true' },
    },
    spec,
    ...(status ? { status } : {}),
  };
}

/**
 * The merge patch that brings an existing Node's kubelet-owned labels (the default labels' keys, with
 * the values the agent registers: `initialLabels`) and annotation in line; null when nothing differs.
 */
export function reconcilePatch(
  existing: KubeObject,
  identity: NodeIdentity,
  initialLabels: Record<string, string> = defaultLabels(identity),
): Record<string, unknown> | null {
  const labels: Record<string, string> = {};
  for (const key of Object.keys(defaultLabels(identity))) {
    const value = initialLabels[key];
    if (value !== undefined && existing.metadata.labels?.[key] !== value) labels[key] = value;
  }
  const annotations: Record<string, string> = {};
  if (existing.metadata.annotations?.[controllerManagedAttachDetach] !== 'true') annotations[controllerManagedAttachDetach] = 'true';
  if (Object.keys(labels).length === 0 && Object.keys(annotations).length === 0) return null;
  return {
    metadata: { ...(Object.keys(labels).length ? { labels } : {}), ...(Object.keys(annotations).length ? { annotations } : {}) },
  };
}

export interface RegistrationOptions {
  api: ApiClient;
  clock: Clock;
  logger: Logger;
  signal: AbortSignal;
}

/** A registration's outcome: the Node as stored, and whether this registration created it (else it existed). */
export interface Registration {
  node: KubeObject;
  created: boolean;
}

/** Registers `node` (see the module header). */
export async function registerNode(node: KubeObject, identity: NodeIdentity, options: RegistrationOptions): Promise<Registration> {
  const { api, clock, logger, signal } = options;
  let backoff = 100;
  for (;;) {
    try {
      return await tryRegister(api, node, identity, logger);
    } catch (err) {
      if (signal.aborted) throw err;
      logger.warn(
        { err: err instanceof Error ? err.message : String(err), node: identity.name, retryInMs: backoff },
        'Unable to register node with API server',
      );
      await sleep(clock, backoff, signal);
      backoff = Math.min(7_000, backoff * 2);
    }
  }
}

async function tryRegister(api: ApiClient, node: KubeObject, identity: NodeIdentity, logger: Logger): Promise<Registration> {
  try {
    const created = await api.create(nodesPath, node);
    logger.info({ node: identity.name }, 'Successfully registered node');
    return { node: created, created: true };
  } catch (err) {
    if (!isStatusError(err, 'AlreadyExists')) throw err;
  }
  const existing = await api.get(`${nodesPath}/${encodeURIComponent(identity.name)}`);
  const patch = reconcilePatch(existing, identity, node.metadata.labels);
  if (!patch) return { node: existing, created: false };
  logger.info({ node: identity.name }, 'Node was previously registered; reconciling its labels');
  return { node: await api.patch(`${nodesPath}/${encodeURIComponent(identity.name)}`, 'merge', patch), created: false };
}
