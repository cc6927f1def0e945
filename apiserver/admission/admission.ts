/**
 * Admission: plugins that may change (mutating) or reject (validating) a write after it is decoded
 * and validated by its kind, before it is stored. Reads never pass through admission. Every plugin
 * must honour dry run: it may not have side effects when `attributes.dryRun` is true.
 */
import type { KubeObject } from '../../shared/api/types.ts';
import type { RequestContext, ResourceDefinition } from '../registry/definition.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: Operation;
  definition: ResourceDefinition;
  subresource: string;
  namespace: string;
  name: string;
  /** The object to be stored (absent for DELETE). */
  object?: KubeObject;
  /** The stored object (UPDATE and DELETE). */
  oldObject?: KubeObject;
  dryRun: boolean;
  context: RequestContext;
}

export interface AdmissionPlugin {
  readonly name: string;
  /** Mutating plugins run first, in order; they may change attributes.object. */
  admit?(attributes: AdmissionAttributes): Promise<void>;
  /** Validating plugins run after every mutation; they throw a StatusError to reject. */
  validate?(attributes: AdmissionAttributes): Promise<void>;
}

export class AdmissionChain {
  constructor(readonly plugins: readonly AdmissionPlugin[]) {}

  async admit(attributes: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) if (plugin.admit) await plugin.admit(attributes);
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) if (plugin.validate) await plugin.validate(attributes);
  }
}
