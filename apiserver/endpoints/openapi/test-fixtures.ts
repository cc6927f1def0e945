/** Fixtures of the OpenAPI tests: a registry of every kind plus one in a two-word group, and accessors. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { isObject } from '../../../shared/api/types.ts';
import { describe, intOrString, kindSchema, pb } from '../../../shared/api/schema.ts';
import { AdmissionChain } from '../../admission/admission.ts';
import { allDefinitions } from '../../registry/all.ts';
import { defineResource, type ResourceDefinition } from '../../registry/definition.ts';
import { Registry } from '../../registry/registry.ts';
import type { EtcdStore } from '../../storage/etcd/store.ts';
import { testKindDependencies } from '../../testing/kind-dependencies.ts';
import { openApiV3Document } from './documents.ts';

export type Json = Record<string, unknown>;

/** Documents are built from definitions alone; no store is ever reached. */
export const etcd = undefined as unknown as EtcdStore;

/** A kind in a multi-word group, for upstream's operation id and tag spelling. */
export const flowSchemaDefinition = defineResource({
  group: 'flowcontrol.apiserver.k8s.io',
  version: 'v1beta3',
  kind: 'FlowSchema',
  plural: 'flowschemas',
  singular: 'flowschema',
  namespaced: false,
  verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
  schema: describe(kindSchema({ spec: pb(2, intOrString('A number or a name.')) }), 'A kind of a group named in two words.'),
  strategy: { validate: () => [] },
});

/** Every built-in kind's definition. */
export const builtInDefinitions = (): ResourceDefinition[] => allDefinitions(async () => undefined, testKindDependencies());

export function newRegistry(extra: ResourceDefinition[] = []): Registry {
  return new Registry([...builtInDefinitions(), ...extra], etcd, new AdmissionChain([]), () => true);
}

export const registry = newRegistry([flowSchemaDefinition]);

export function obj(value: unknown, what: string): Json {
  assert.ok(isObject(value), `${what} is not an object`);
  return value;
}

export function v3(key: string): Json {
  return obj(openApiV3Document(registry, key), `document ${key}`);
}

export const sha512 = (text: string): string => createHash('sha512').update(text).digest('hex').toUpperCase();
