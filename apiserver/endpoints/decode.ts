/**
 * Turns a request body into an object of a kind, as upstream's decoding does: syntax errors and
 * wrong types are 400 whatever fieldValidation says; unknown and duplicate fields are dropped and,
 * by fieldValidation, ignored (Ignore), reported as Warning headers (Warn, the default) or
 * rejected together in one 400 (Strict).
 */
import { badRequest, isStatusError } from '../../shared/api/errors.ts';
import { isObject, type KubeObject } from '../../shared/api/types.ts';
import { parseBodySteps } from '../../shared/codec/body.ts';
import { parseJsonSteps } from '../../shared/codec/json-sliced.ts';
import { valueOfProtobufOffloaded, valueOfYamlOffloaded } from '../../shared/codec/offload/pool.ts';
import { checkAgainstSchema, jsonType, SchemaTypeError } from '../../shared/codec/schema-check.ts';
import { apiVersionOf, type ResourceDefinition } from '../registry/definition.ts';
import type { Schema } from '../../shared/api/schema.ts';
import { ProtobufError } from '../../shared/codec/protobuf/errors.ts';
import { decodeObject as decodeProtobufObject } from '../../shared/codec/protobuf/object.ts';
import type { BodyFormat } from './negotiation.ts';
import type { TimeSlice } from '../../shared/apply/time-slice.ts';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface Decoded {
  object: KubeObject;
  warnings: string[];
}

/** `ConfigMap in version "v1" cannot be handled as a ConfigMap: <detail>`. */
export function cannotBeHandled(def: ResourceDefinition, detail: string): Error {
  return badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${detail}`);
}

/** Go's summarizeData for binary data: the first 30 bytes in hex, marked when cut. */
function summarizeBytes(body: Uint8Array): string {
  const hex = Buffer.from(body.subarray(0, 30)).toString('hex');
  return body.length > 30 ? `${hex} ...` : hex;
}

/** Go's summarizeData: the first 30 bytes of a body, marked when cut. */
function summarize(text: string): string {
  return text.length > 30 ? `${text.slice(0, 30)} ...` : text;
}

/**
 * YAML bodies from this many characters on are parsed on the codec worker: the YAML library's
 * parser cannot be cut into slices and reads about a megabyte a second, so 64 KiB holds the event
 * loop for some tens of milliseconds at most.
 */
const offloadedYamlMinLength = 64 * 1024;

/**
 * parseBody holding the event loop only briefly: JSON is parsed in slices (the request's `slice`
 * between them), a large YAML body on the codec worker, whose JSON text is then read in slices.
 * The value, duplicates and errors are parseBody's either way.
 */
export async function parseBodyYielding(
  text: string,
  format: 'json' | 'yaml',
  wantDuplicates: boolean,
  slice: TimeSlice,
): Promise<{ value: unknown; duplicates: string[] }> {
  if (format === 'json' || text.length < offloadedYamlMinLength) return slice.run(parseBodySteps(text, format, wantDuplicates));
  const parsed = await valueOfYamlOffloaded(text, wantDuplicates);
  if ('failure' in parsed) throw badRequest(parsed.failure);
  return { value: await slice.run(parseJsonSteps(parsed.json)), duplicates: parsed.duplicates };
}

/**
 * Protobuf bodies from this many bytes on are decoded on the codec worker: the reader cannot be cut
 * into slices and takes about 50 ms a megabyte.
 */
const offloadedProtobufMinLength = 256 * 1024;

/** decodeProtobuf on the codec worker, whose JSON text is then read in slices. */
async function decodeProtobufOffloaded(body: Uint8Array, schema: Schema, slice: TimeSlice): Promise<Record<string, unknown>> {
  const decoded = await valueOfProtobufOffloaded(body, schema);
  if ('failure' in decoded) throw badRequest(decoded.failure);
  const value = await slice.run(parseJsonSteps(decoded.json));
  if (!isObject(value)) throw new Error('the codec worker decoded a protobuf body to something other than an object');
  return value;
}

/** Decodes a protobuf body (envelope + message) with `schema`; a malformed one is a 400. */
export function decodeProtobuf(body: Uint8Array, schema: Schema): Record<string, unknown> {
  try {
    return decodeProtobufObject(body, schema);
  } catch (err) {
    if (err instanceof ProtobufError) throw badRequest(err.message);
    throw err;
  }
}

/**
 * Decodes a create or update body. Its passes (parsing, the duplicate key scan, the schema check)
 * are apart: between them the request's `slice` may let the event loop run. Errors are those of
 * the passes, whether it does or not.
 */
export async function decodeObject(def: ResourceDefinition, body: Buffer, format: BodyFormat, validation: FieldValidation, slice: TimeSlice): Promise<Decoded> {
  const boundary = (): Promise<void> => slice.boundary();
  // Protobuf carries only known fields, each once, with types fixed by the field numbers.
  if (format === 'protobuf') {
    try {
      const value = body.length < offloadedProtobufMinLength ? decodeProtobuf(body, def.schema) : await decodeProtobufOffloaded(body, def.schema, slice);
      await boundary();
      // Its decoder gives each field its schema's type, and no null, unknown field or empty collection
      // (protobuf has no way to say them): the schema walk would find nothing.
      return checkDecoded(def, value, [], validation, false);
    } catch (err) {
      // Upstream's transformDecodeError: binary bodies are summarized in hex.
      if (isStatusError(err, 'BadRequest')) {
        throw badRequest(`the object provided is unrecognized (must be of type ${def.kind}): ${err.message} (${summarizeBytes(body)})`);
      }
      throw err;
    }
  }
  const text = body.toString('utf8');
  let parsed;
  try {
    parsed = await parseBodyYielding(text, format, validation !== 'Ignore', slice);
  } catch (err) {
    // Upstream's transformDecodeError: the kind expected, the parser's complaint, the body's start.
    if (isStatusError(err, 'BadRequest')) {
      throw badRequest(`the object provided is unrecognized (must be of type ${def.kind}): ${err.message} (${summarize(text)})`);
    }
    throw err;
  }
  const { value, duplicates } = parsed;
  if (!isObject(value)) throw cannotBeHandled(def, `json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct`);
  await boundary();
  return checkDecoded(def, value, duplicates, validation);
}

/**
 * Checks an already parsed object (a decoded body or the result of a patch) against its kind: its
 * apiVersion and kind, and unless `walkSchema` is false, every field against the kind's schema.
 */
export function checkDecoded(
  def: ResourceDefinition,
  value: Record<string, unknown>,
  duplicates: string[],
  validation: FieldValidation,
  walkSchema = true,
): Decoded {
  const expected = apiVersionOf(def);
  // Upstream reads apiVersion and kind into strings first: anything else fails that decoding.
  for (const field of ['apiVersion', 'kind'] as const) {
    const found = value[field];
    if (found === undefined || found === null || typeof found === 'string') continue;
    throw badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(found)} into Go struct field .${field} of type string`);
  }
  if (value.apiVersion !== undefined && value.apiVersion !== '' && value.apiVersion !== expected) {
    throw badRequest(`the API version in the data (${String(value.apiVersion)}) does not match the expected API version (${expected})`);
  }
  if (value.kind !== undefined && value.kind !== '' && value.kind !== def.kind) {
    throw cannotBeHandled(def, `no kind "${String(value.kind)}" is registered for version "${expected}"`);
  }
  let unknown: string[] = [];
  try {
    if (walkSchema) unknown = checkAgainstSchema(value, def.schema, def.kind);
  } catch (err) {
    if (err instanceof SchemaTypeError) throw cannotBeHandled(def, err.message);
    throw err;
  }
  if (value.metadata === undefined) value.metadata = {};
  const problems = [...unknown.map((f) => `unknown field "${f}"`), ...duplicates];
  if (problems.length && validation === 'Strict') throw cannotBeHandled(def, `strict decoding error: ${problems.join(', ')}`);
  return { object: value as KubeObject, warnings: validation === 'Warn' ? problems : [] };
}
