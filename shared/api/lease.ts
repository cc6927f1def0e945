/**
 * Lease (coordination.k8s.io/v1): its TypeScript shape and schema, shared by the API server's kind
 * (apiserver/registry/coordination/lease.ts, which adds validation and strategy) and by clients
 * that encode it (node heartbeats in protobuf). Field numbers are upstream's generated.proto.
 */
import { describe, int32, kindSchema, microTime, named, object, pb, string, type Schema } from './schema.ts';
import type { KubeObject } from './types.ts';

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** MicroTime: RFC 3339 with microseconds. */
  acquireTime?: string;
  /** MicroTime: RFC 3339 with microseconds. */
  renewTime?: string;
  leaseTransitions?: number;
  strategy?: string;
  preferredHolder?: string;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

const leaseSpec = (): Schema =>
  named(
    'io.k8s.api.coordination.v1.LeaseSpec',
    'Who holds a lease, since when, and for how long it stays valid without renewal.',
    object({
      holderIdentity: pb(1, string('Identity of the current holder, such as a node or a leader candidate; empty when free.'), 'optional'),
      leaseDurationSeconds: pb(
        2,
        int32('Seconds after renewTime during which the lease stays held; other candidates may take it over once they pass.'),
        'optional',
      ),
      acquireTime: pb(3, microTime('When the current holder acquired the lease.'), 'optional'),
      renewTime: pb(4, microTime('When the current holder last renewed the lease.'), 'optional'),
      leaseTransitions: pb(5, int32('How many times the lease has changed holders.'), 'optional'),
      strategy: pb(
        6,
        string('How the next holder is chosen in coordinated leader election, such as OldestEmulationVersion. Alpha; dropped unless already set.'),
        'optional',
      ),
      preferredHolder: pb(
        7,
        string(
          'Candidate coordinated leader election wants to take over; the current holder should release the lease to it. Alpha; dropped unless already set.',
        ),
        'optional',
      ),
    }),
  );

/** The Lease kind's schema. */
export const leaseSchema = (): Schema =>
  describe(
    kindSchema({ spec: pb(2, describe(leaseSpec(), 'The holder of the lease and its timing.')) }),
    'A named lock with a holder and a renewal time, for node heartbeats and leader election.',
  );
