/**
 * What the fuzzer knows about a served kind beyond discovery: a valid object to mutate (from the
 * conformance fixtures, which state upstream's behaviour) and the schema its protobuf form is
 * encoded with. Kinds without either still get a minimal object and envelope-level protobuf.
 */
import { fixtureKey, fixtures } from '../../apiserver/registry/conformance-fixtures.ts';
import type { ResourceDefinition } from '../../apiserver/registry/definition.ts';
import { csrDefinition } from '../../apiserver/registry/certificates/csr/csr.ts';
import { leaseDefinition } from '../../apiserver/registry/coordination/lease.ts';
import { configMapDefinition } from '../../apiserver/registry/core/configmap.ts';
import { coreEventDefinition } from '../../apiserver/registry/core/event.ts';
import { namespaceDefinition } from '../../apiserver/registry/core/namespace.ts';
import { nodeDefinition } from '../../apiserver/registry/core/node/node.ts';
import { secretDefinition } from '../../apiserver/registry/core/secret.ts';
import { eventsV1EventDefinition } from '../../apiserver/registry/events/event.ts';
import { clusterCIDRDefinition } from '../../apiserver/registry/networking/clustercidr.ts';
import { csiDriverDefinition } from '../../apiserver/registry/volumes/csidriver.ts';
import { csiNodeDefinition } from '../../apiserver/registry/volumes/csinode.ts';
import { csiStorageCapacityDefinition } from '../../apiserver/registry/volumes/csistoragecapacity.ts';
import { volumeAttachmentDefinition } from '../../apiserver/registry/volumes/volumeattachment.ts';
import type { Schema } from '../../shared/api/schema.ts';
import { apiVersionOf } from '../../shared/api/types.ts';
import type { ServedResource } from './served.ts';

const definitions: readonly ResourceDefinition[] = [
  csrDefinition,
  leaseDefinition,
  configMapDefinition,
  coreEventDefinition,
  namespaceDefinition,
  nodeDefinition,
  secretDefinition,
  eventsV1EventDefinition,
  clusterCIDRDefinition,
  csiDriverDefinition,
  csiNodeDefinition,
  csiStorageCapacityDefinition,
  volumeAttachmentDefinition,
];

const schemas = new Map<string, Schema>(definitions.map((d) => [fixtureKey({ group: d.group, version: d.version, plural: d.plural }), d.schema]));

const keyOf = (r: ServedResource): string => fixtureKey({ group: r.group, version: r.version, plural: r.resource });

/** A valid object of the kind, named `name` (in `namespace` when namespaced), as a client POSTs it. */
export function validObject(r: ServedResource, name: string, namespace: string): Record<string, unknown> {
  const fixture = fixtures[keyOf(r)];
  if (fixture && !fixture.readOnly) return fixture.valid(name, namespace);
  return { apiVersion: apiVersionOf(r), kind: r.kind, metadata: r.namespaced ? { name, namespace } : { name } };
}

/** The kind's schema, for protobuf bodies; undefined for kinds the fuzzer has no definition of. */
export function schemaOf(r: ServedResource): Schema | undefined {
  return schemas.get(keyOf(r));
}
