/** Every kind corral serves, in discovery order. Adding a kind means adding its definition here. */
import type { EtcdStore } from '../storage/etcd/store.ts';
import type { ResourceDefinition } from './definition.ts';
import { csrDefinition } from './certificates/csr.ts';
import { leaseDefinition } from './coordination/lease.ts';
import { componentStatusDefinition, etcdComponentStatus } from './core/componentstatus.ts';
import { configMapDefinition } from './core/configmap.ts';
import { coreEventDefinition } from './core/event.ts';
import { namespaceDefinition } from './core/namespace.ts';
import { nodeDefinition } from './core/node.ts';
import { secretDefinition } from './core/secret.ts';
import { eventsV1EventDefinition } from './events/event.ts';
import { clusterCIDRDefinition } from './networking/clustercidr.ts';
import { csiDriverDefinition } from './storage/csidriver.ts';
import { csiNodeDefinition } from './storage/csinode.ts';
import { csiStorageCapacityDefinition } from './storage/csistoragecapacity.ts';
import { volumeAttachmentDefinition } from './storage/volumeattachment.ts';

/** ComponentStatus reports etcd's health as seen from this replica, probed on each request. */
function etcdProbe(etcd: EtcdStore) {
  return async () => {
    try {
      await etcd.currentRevision();
      return [etcdComponentStatus('etcd-0', true)];
    } catch (err) {
      return [etcdComponentStatus('etcd-0', false, err instanceof Error ? err.message : String(err))];
    }
  };
}

export function allDefinitions(etcd: EtcdStore): ResourceDefinition[] {
  return [
    componentStatusDefinition(etcdProbe(etcd)),
    configMapDefinition,
    coreEventDefinition,
    namespaceDefinition,
    nodeDefinition,
    secretDefinition,
    csrDefinition,
    leaseDefinition,
    eventsV1EventDefinition,
    clusterCIDRDefinition,
    csiDriverDefinition,
    csiNodeDefinition,
    csiStorageCapacityDefinition,
    volumeAttachmentDefinition,
  ];
}
