/** Every kind corral serves, in discovery order. Adding a kind means adding its definition here. */
import type { EtcdStore } from '../storage/etcd/store.ts';
import type { ResourceDefinition } from './definition.ts';
import { configMapDefinition } from './core/configmap.ts';
import { coreEventDefinition } from './core/event.ts';
import { eventsV1EventDefinition } from './events/event.ts';
import { namespaceDefinition } from './core/namespace.ts';
import { nodeDefinition } from './core/node.ts';
import { secretDefinition } from './core/secret.ts';
import { csiDriverDefinition } from './storage/csidriver.ts';
import { csiNodeDefinition } from './storage/csinode.ts';
import { csiStorageCapacityDefinition } from './storage/csistoragecapacity.ts';

export function allDefinitions(_etcd: EtcdStore): ResourceDefinition[] {
  return [
    configMapDefinition,
    coreEventDefinition,
    namespaceDefinition,
    nodeDefinition,
    secretDefinition,
    csiDriverDefinition,
    csiNodeDefinition,
    csiStorageCapacityDefinition,
    eventsV1EventDefinition,
  ] as ResourceDefinition[];
}
