/**
 * The codec work done on the codec worker thread (see ./pool.ts): each task is one call the event
 * loop cannot cut into slices (the YAML library's parser and writer, JSON.stringify with
 * indentation, the protobuf writer and reader), done for a large value so that the loop stays free.
 *
 * Values cross the thread boundary as JSON text: the event loop writes and reads that text in
 * slices (json-stringify-sliced.ts, json-sliced.ts), whereas a structured clone of a large object
 * is one uncut call on both sides. Each task computes exactly what the inline path computes from the
 * same value, with the same functions, so an answer does not depend on where it was made.
 *
 * This module is loaded by the worker: it imports only pure codec modules, never server state.
 */
import { isStatusError } from '../../api/errors.ts';
import type { Schema } from '../../api/schema.ts';
import { runSteps } from '../../apply/steps.ts';
import { parseBodySteps } from '../body.ts';
import { encodeMessage } from '../protobuf/encode.ts';
import { ProtobufError } from '../protobuf/errors.ts';
import { decodeObject, encodeObject } from '../protobuf/object.ts';
import { stringifyYaml } from '../yaml-stringify.ts';

/** A value in YAML as upstream writes it. */
export function yamlOfJson(json: string): string {
  return stringifyYaml(JSON.parse(json));
}

/** A value in JSON indented by two spaces (`?pretty=true`). */
export function prettyJsonOfJson(json: string): string {
  return JSON.stringify(JSON.parse(json), null, 2);
}

export interface ProtobufTask {
  json: string;
  schema: Schema;
  /** The envelope's type; without it, the bare message. */
  envelope?: { apiVersion: string; kind: string };
}

/**
 * A value as a protobuf message (in its `k8s\0` envelope when the task names one), in a buffer of its
 * own (moved, not copied, to the caller).
 */
export function protobufOfJson(task: ProtobufTask): Uint8Array {
  const value = JSON.parse(task.json) as Record<string, unknown>;
  const encoded = task.envelope ? encodeObject(value, task.schema, task.envelope) : encodeMessage(value, task.schema);
  // A copy: the encoding may be a view into a larger buffer, which must not be moved away.
  return new Uint8Array(encoded);
}

export interface YamlTask {
  text: string;
  wantDuplicates: boolean;
}

/** A parsed YAML body as JSON text with its duplicated keys, or the 400's message when it is malformed. */
export type ParsedYaml = { json: string; duplicates: string[] } | { failure: string };

export function valueOfYaml(task: YamlTask): ParsedYaml {
  try {
    const { value, duplicates } = runSteps(parseBodySteps(task.text, 'yaml', task.wantDuplicates));
    return { json: JSON.stringify(value), duplicates };
  } catch (err) {
    if (isStatusError(err, 'BadRequest')) return { failure: err.message };
    throw err;
  }
}

export interface ProtobufBodyTask {
  bytes: Uint8Array;
  schema: Schema;
}

/** A decoded protobuf body (envelope and message) as JSON text, or the malformed body's message. */
export type DecodedProtobuf = { json: string } | { failure: string };

export function valueOfProtobuf(task: ProtobufBodyTask): DecodedProtobuf {
  try {
    return { json: JSON.stringify(decodeObject(task.bytes, task.schema)) };
  } catch (err) {
    if (err instanceof ProtobufError) return { failure: err.message };
    throw err;
  }
}
