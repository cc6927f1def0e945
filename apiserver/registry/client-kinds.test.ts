/**
 * The clients' protobuf table (shared/client/kinds.ts) is a view of the kinds served here: each
 * entry's schema, resource and scope are those of the kind's definition, so a client encodes with
 * the field numbers the server decodes with.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientKinds } from '../../shared/client/kinds.ts';
import { testKindDependencies } from '../testing/kind-dependencies.ts';
import { allDefinitions } from './all.ts';

describe('the clients’ protobuf kinds', () => {
  const definitions = allDefinitions(async () => {}, testKindDependencies());

  for (const entry of clientKinds) {
    it(`${entry.kind} is served with the same schema, resource and scope`, () => {
      const def = definitions.find((d) => d.group === entry.group && d.version === entry.version && d.kind === entry.kind);
      assert.ok(def, `${entry.group}/${entry.version} ${entry.kind} is not served`);
      assert.equal(def.plural, entry.resource);
      assert.equal(def.namespaced, entry.namespaced);
      assert.deepEqual(entry.schema(), def.schema);
    });
  }
});
