import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nodeSchema } from '../../api/node.ts';
import { parseBody } from '../body.ts';
import { isLargeJson } from '../json-stringify-sliced.ts';
import { ProtobufError } from '../protobuf/errors.ts';
import { decodeObject, encodeObject } from '../protobuf/object.ts';
import { stringifyYaml } from '../yaml-stringify.ts';
import {
  prettyJsonOfJsonOffloaded,
  protobufOfJsonOffloaded,
  stopCodecWorker,
  valueOfProtobufOffloaded,
  valueOfYamlOffloaded,
  yamlOfJsonOffloaded,
} from './pool.ts';

/** A Node large enough to be offloaded (isLargeJson), with values YAML must quote. */
function largeNode(labelCount: number): Record<string, unknown> {
  const labels: Record<string, string> = {};
  for (let i = 0; i < labelCount; i++) labels[`example.com/l-${i}`] = i % 3 === 0 ? 'true' : i % 3 === 1 ? `${i}` : `v-${i}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'large', labels, annotations: { multi: 'a\nb\n', '2001-01-01': 'x' } },
    spec: { taints: [{ key: 'k', effect: 'NoSchedule' }], podCIDRs: ['10.0.0.0/24'] },
  };
}

/** Resolves with whether a setImmediate callback ran before `work` settled: the event loop was free meanwhile. */
async function loopRanDuring(work: Promise<unknown>): Promise<boolean> {
  let ran = false;
  setImmediate(() => {
    ran = true;
  });
  await work;
  return ran;
}

describe('codec worker', () => {
  after(() => stopCodecWorker());
  const node = largeNode(20_000);
  const json = JSON.stringify(node);

  it('writes what the event loop would write, for a value large enough to be sent to it', async () => {
    assert.ok(isLargeJson(node));
    assert.equal(await yamlOfJsonOffloaded(json), stringifyYaml(node));
    assert.equal(await prettyJsonOfJsonOffloaded(json), JSON.stringify(node, null, 2));
    const schema = nodeSchema();
    const bytes = await protobufOfJsonOffloaded(json, schema, { apiVersion: 'v1', kind: 'Node' });
    assert.deepEqual(Buffer.from(bytes), Buffer.from(encodeObject(node, schema, { apiVersion: 'v1', kind: 'Node' })));
  });

  it('parses YAML as parseBody does: value, duplicated keys, and the 400 message of a malformed document', async () => {
    const text = `${stringifyYaml(node)}metadata:\n  name: again\n`;
    const inline = parseBody(text, 'yaml', true);
    const offloaded = await valueOfYamlOffloaded(text, true);
    assert.ok('json' in offloaded);
    assert.deepEqual(JSON.parse(offloaded.json), inline.value);
    assert.deepEqual(offloaded.duplicates, inline.duplicates);
    assert.match(inline.duplicates[0] ?? '', /key "metadata" already set in map/);
    assert.deepEqual(await valueOfYamlOffloaded('a: *nope\n', false), {
      failure: 'error converting YAML to JSON: yaml: Unresolved alias (the anchor must be set before the alias): nope',
    });
    assert.deepEqual(await valueOfYamlOffloaded('a: .inf\n', false), { failure: 'error converting YAML to JSON: json: unsupported value: +Inf' });
  });

  it("decodes protobuf as decodeObject does, and a malformed body to the reader's message", async () => {
    const schema = nodeSchema();
    const bytes = encodeObject(node, schema, { apiVersion: 'v1', kind: 'Node' });
    const decoded = await valueOfProtobufOffloaded(bytes, schema);
    assert.ok('json' in decoded);
    assert.deepEqual(JSON.parse(decoded.json), decodeObject(bytes, schema));
    const truncated = bytes.subarray(0, bytes.length - 3);
    const inline = (() => {
      try {
        decodeObject(truncated, schema);
        return undefined;
      } catch (err) {
        return err instanceof ProtobufError ? err.message : String(err);
      }
    })();
    assert.ok(inline, 'a truncated body decoded');
    assert.deepEqual(await valueOfProtobufOffloaded(truncated, schema), { failure: inline });
  });

  it('leaves the event loop free while it works', async () => {
    assert.equal(await loopRanDuring(yamlOfJsonOffloaded(json)), true);
    // The inline writer, for contrast, holds the loop until it is done.
    assert.equal(await loopRanDuring(Promise.resolve(stringifyYaml(node))), false);
  });

  it('starts again after being stopped', async () => {
    await stopCodecWorker();
    assert.equal(await yamlOfJsonOffloaded('{"b":1,"a":[1]}'), 'a:\n- 1\nb: 1\n');
  });
});

describe('codec worker failures', () => {
  after(() => stopCodecWorker());

  it("a task's failure fails that task alone", async () => {
    await assert.rejects(yamlOfJsonOffloaded('{not json'), /^Error: codec worker: SyntaxError/);
    assert.equal(await yamlOfJsonOffloaded('{"a":1}'), 'a: 1\n');
  });

  it('a thread that stops fails the tasks it held, and the next task starts another', async () => {
    const held = yamlOfJsonOffloaded(JSON.stringify(largeNode(20_000)));
    await stopCodecWorker();
    await assert.rejects(held, /the codec worker exited with code 1/);
    assert.equal(await yamlOfJsonOffloaded('{"a":1}'), 'a: 1\n');
  });
});
