/**
 * NamespaceLifecycle: no new objects in a namespace that does not exist (404) or is terminating
 * (403), and the system namespaces can never be deleted.
 *
 * Upstream implements it as a mutating plugin (Admit) that changes nothing, so it runs in the
 * mutating phase: before the kind's validation, so that a create in a missing namespace is a 404
 * even when the object is invalid too.
 */
import { forbidden, isStatusError, notFound } from '../../shared/api/errors.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.ts';

export const immortalNamespaces = ['default', 'kube-system', 'kube-public'] as const;

/** Reads a namespace; null when it does not exist. */
export type NamespaceLookup = (name: string) => Promise<KubeObject | null>;

export function namespaceLifecycle(lookup: NamespaceLookup): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    operations: ['CREATE', 'UPDATE', 'DELETE'],
    async admit(a: AdmissionAttributes): Promise<void> {
      const gr = { group: a.definition.group, resource: a.definition.plural };
      if (a.definition.plural === 'namespaces' && a.definition.group === '') {
        if (a.operation === 'DELETE' && (immortalNamespaces as readonly string[]).includes(a.name)) {
          throw forbidden(gr, a.name, 'this namespace may not be deleted');
        }
        return;
      }
      if (!a.definition.namespaced || a.operation !== 'CREATE') return;
      const namespace = await lookup(a.namespace);
      if (!namespace) throw notFound({ group: '', resource: 'namespaces' }, a.namespace);
      const phase = (namespace.status as { phase?: string } | undefined)?.phase;
      if (phase === 'Terminating' || namespace.metadata.deletionTimestamp) {
        const err = forbidden(gr, a.name, `unable to create new content in namespace ${a.namespace} because it is being terminated`);
        err.status.details = {
          ...err.status.details,
          causes: [{ reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' }],
        };
        throw err;
      }
    },
  };
}

/**
 * Adapts a store's get (which throws NotFound) to a NamespaceLookup that reads the watch cache
 * (`resourceVersion=0`) and, only when the namespace is missing there, etcd: a namespace created a
 * moment ago may not have reached this replica's cache yet.
 */
export function lookupFrom(get: (name: string, resourceVersion?: string) => Promise<KubeObject>): NamespaceLookup {
  const read = async (name: string, resourceVersion?: string): Promise<KubeObject | null> => {
    try {
      return await get(name, resourceVersion);
    } catch (err) {
      if (isStatusError(err, 'NotFound')) return null;
      throw err;
    }
  };
  return async (name) => (await read(name, '0')) ?? (await read(name));
}
