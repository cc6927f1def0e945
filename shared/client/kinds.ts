/**
 * The kinds clients speak protobuf for: the client's view of the API, a lookup from (apiVersion,
 * kind), and from a request path's resource, to the schema that gives the protobuf field numbers.
 *
 * Why a table of its own rather than the API server's registry (apiserver/registry/all.ts): that
 * registry is built from ResourceDefinitions, which carry strategies, validation, tables and
 * storage hooks a client must not load (the node agent does not import apiserver/). What the two
 * share is the schema: each entry here calls the very builder in shared/api/ that the kind's
 * definition uses (`schema: leaseSchema()`), so there is one source of field numbers, and
 * apiserver/registry/client-kinds.test.ts checks that every entry matches the served definition
 * (schema, resource, scope). The table lists only what the node agent sends and receives; a kind
 * missing here is spoken in JSON (client-go's typed clients likewise know only their own types).
 */
import { csrSchema } from '../api/certificate-signing-request.ts';
import { csiNodeSchema } from '../api/csinode.ts';
import { coreEventSchema } from '../api/event.ts';
import { leaseSchema } from '../api/lease.ts';
import { nodeSchema } from '../api/node.ts';
import { podSchema } from '../api/pod.ts';
import { deleteOptionsSchema, listSchema, statusSchema, type Schema } from '../api/schema.ts';
import { apiVersionOf } from '../api/types.ts';

/** One kind a client encodes and decodes in protobuf, and where it is served. */
export interface ClientKind {
  group: string;
  version: string;
  kind: string;
  /** The plural resource in request paths. */
  resource: string;
  namespaced: boolean;
  schema: () => Schema;
}

/** The kinds of the table, in no particular order. */
export const clientKinds: readonly ClientKind[] = [
  { group: '', version: 'v1', kind: 'Node', resource: 'nodes', namespaced: false, schema: nodeSchema },
  { group: '', version: 'v1', kind: 'Pod', resource: 'pods', namespaced: true, schema: podSchema },
  { group: '', version: 'v1', kind: 'Event', resource: 'events', namespaced: true, schema: coreEventSchema },
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', resource: 'leases', namespaced: true, schema: leaseSchema },
  { group: 'storage.k8s.io', version: 'v1', kind: 'CSINode', resource: 'csinodes', namespaced: false, schema: csiNodeSchema },
  {
    group: 'certificates.k8s.io',
    version: 'v1',
    kind: 'CertificateSigningRequest',
    resource: 'certificatesigningrequests',
    namespaced: false,
    schema: csrSchema,
  },
];

/**
 * Schemas by `apiVersion/kind`, built on first use and kept: the codec compiles a layout per
 * schema object, so each schema is built once. Holds each kind, its list, and meta/v1's Status
 * and DeleteOptions.
 */
let byType: Map<string, Schema> | undefined;
/** The kinds by `group/version/resource`. */
let byResource: Map<string, ClientKind> | undefined;

function tables(): { byType: Map<string, Schema>; byResource: Map<string, ClientKind> } {
  if (!byType || !byResource) {
    byType = new Map([
      ['v1/Status', statusSchema()],
      ['v1/DeleteOptions', deleteOptionsSchema()],
    ]);
    byResource = new Map();
    for (const entry of clientKinds) {
      const apiVersion = apiVersionOf(entry);
      const schema = entry.schema();
      byType.set(`${apiVersion}/${entry.kind}`, schema);
      byType.set(`${apiVersion}/${entry.kind}List`, listSchema(schema));
      byResource.set(`${entry.group}/${entry.version}/${entry.resource}`, entry);
    }
  }
  return { byType, byResource };
}

/** The protobuf schema of (apiVersion, kind), lists included; undefined for a kind clients speak in JSON. */
export function clientSchemaOf(apiVersion: string, kind: string): Schema | undefined {
  return tables().byType.get(`${apiVersion}/${kind}`);
}

/**
 * The kind a request path addresses (`/api/v1/nodes/n1`, `/apis/coordination.k8s.io/v1/namespaces/x/leases/y`,
 * a collection, or the `status` subresource, which reads and writes the whole object), when it is
 * one of the table's; undefined for other paths, other subresources (their bodies are other kinds)
 * and paths outside the API (`/healthz`).
 */
export function clientKindOfPath(path: string): ClientKind | undefined {
  const segments =
    path
      .split('?')[0]
      ?.split('/')
      .filter((s) => s !== '') ?? [];
  let rest: string[];
  let group: string;
  let version: string;
  if (segments[0] === 'api' && segments.length >= 3) {
    group = '';
    version = segments[1] ?? '';
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    group = segments[1] ?? '';
    version = segments[2] ?? '';
    rest = segments.slice(3);
  } else return undefined;
  // `namespaces/<ns>/<resource>...`; `namespaces` alone or `namespaces/<ns>` is the Namespace kind.
  if (rest[0] === 'namespaces' && rest.length >= 3) rest = rest.slice(2);
  const [resource = '', , subresource, ...more] = rest;
  if (more.length > 0 || (subresource !== undefined && subresource !== 'status')) return undefined;
  return tables().byResource.get(`${group}/${version}/${resource}`);
}
