/**
 * Turns a request body into an object of a kind, as upstream's decoding does: syntax errors and
 * wrong types are 400 whatever fieldValidation says; unknown and duplicate fields are dropped and,
 * by fieldValidation, ignored (Ignore), reported as Warning headers (Warn, the default) or
 * rejected together in one 400 (Strict).
 */
import { isCollection, isMap, isPair, isScalar, LineCounter, parseDocument } from 'yaml';
import { badRequest, isStatusError } from '../../shared/api/errors.ts';
import { goQuote } from '../../shared/go/format.ts';
import { isObject, type KubeObject } from '../../shared/api/types.ts';
import { findDuplicateKeysSteps, JsonSyntaxError } from '../../shared/codec/json.ts';
import { parseJsonSteps } from '../../shared/codec/json-sliced.ts';
import { exceedsNestingDepth, maxNestingDepth, nestingTooDeepMessage } from '../../shared/codec/nesting.ts';
import { checkAgainstSchema, jsonType, SchemaTypeError } from '../../shared/codec/schema-check.ts';
import { apiVersionOf, type ResourceDefinition } from '../registry/definition.ts';
import type { Schema } from '../../shared/api/schema.ts';
import { ProtobufError } from '../../shared/codec/protobuf/errors.ts';
import { decodeObject as decodeProtobufObject } from '../../shared/codec/protobuf/object.ts';
import type { BodyFormat } from './negotiation.ts';
import { runSteps, runStepsYielding, type Steps } from '../../shared/apply/steps.ts';
import type { TimeSlice } from '../registry/time-slice.ts';

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
 * Go's encoding/json wording for the common syntax errors, from the JavaScript parser's message:
 * clients and people know these texts from upstream.
 */
export function goJsonSyntaxMessage(text: string, jsMessage: string): string {
  if (jsMessage === nestingTooDeepMessage) return jsMessage;
  const at = /position (\d+)/.exec(jsMessage);
  const position = at ? Number(at[1]) : text.length;
  if (/end of JSON input/i.test(jsMessage) || position >= text.trimEnd().length) return 'unexpected end of JSON input';
  const ch = text[position] ?? '';
  return `invalid character '${ch}' looking for beginning of value`;
}

/**
 * Parses JSON or YAML text into a value and, when asked, its duplicated keys as upstream words
 * them (`duplicate field "data.a"` for JSON, `line 7: key "a" already set in map` for YAML).
 */
export function parseBody(text: string, format: 'json' | 'yaml', wantDuplicates: boolean): { value: unknown; duplicates: string[] } {
  return runSteps(parseBodySteps(text, format, wantDuplicates));
}

/** parseBody with the request's slice between its passes. */
export function parseBodyYielding(
  text: string,
  format: 'json' | 'yaml',
  wantDuplicates: boolean,
  slice: TimeSlice,
): Promise<{ value: unknown; duplicates: string[] }> {
  return runStepsYielding(parseBodySteps(text, format, wantDuplicates), () => slice.boundary());
}

/** parseBody in steps of one pass over the text or the value each (shared/apply/steps.ts). */
function* parseBodySteps(text: string, format: 'json' | 'yaml', wantDuplicates: boolean): Steps<{ value: unknown; duplicates: string[] }> {
  if (format === 'yaml') return yield* yamlToValue(text, wantDuplicates);
  try {
    const value = yield* parseJsonSteps(text);
    if (!wantDuplicates) return { value, duplicates: [] };
    yield;
    const duplicates = yield* findDuplicateKeysSteps(text);
    return { value, duplicates: duplicates.map((path) => `duplicate field "${path}"`) };
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw badRequest(`couldn't get version/kind; json parse error: ${goJsonSyntaxMessage(text, err.message)}`);
    throw err;
  }
}

/**
 * A YAML document as a plain value, as sigs.k8s.io/yaml converts it to JSON: malformed documents,
 * tags that have no JSON form (`!!binary`, `!!set`, custom tags), undefined aliases, alias bombs and
 * documents nested beyond maxNestingDepth are 400s, never a failure of the server. Duplicated keys
 * come in upstream's wording (`line 7: key "a" already set in map`) when asked for.
 */
function* yamlToValue(text: string, wantDuplicates: boolean): Steps<{ value: unknown; duplicates: string[] }> {
  const fail = (detail: string): never => {
    throw badRequest(`error converting YAML to JSON: yaml: ${detail}`);
  };
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, customTags: [], resolveKnownTags: false, stringKeys: true, lineCounter });
  const error = doc.errors[0];
  // The parser is recursive: a deep enough document exhausts the stack, which it reports as an error.
  if (error) fail(/call stack/i.test(error.message) ? nestingTooDeepMessage : error.message);
  yield;
  const inspected = inspectYaml(doc.contents, wantDuplicates);
  if (inspected.tooDeep) fail(nestingTooDeepMessage);
  yield;
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (err) {
    // Excessive alias count, an alias to nothing: the document's fault.
    fail(err instanceof Error ? err.message : String(err));
  }
  yield;
  if (exceedsNestingDepth(value)) fail(nestingTooDeepMessage);
  const duplicates = inspected.duplicateKeys.map(
    ([start, end]) => `line ${lineCounter.linePos(start).line}: key ${goQuote(text.slice(start, end).trim())} already set in map`,
  );
  return { value, duplicates };
}

/**
 * One iterative walk over a YAML node tree: whether collections nest beyond maxNestingDepth, and
 * (when asked) the source ranges of keys repeated within their map, in document order. The
 * parser's own uniqueKeys check compares every key with every other (120,000 labels: minutes).
 */
function inspectYaml(root: unknown, wantDuplicates: boolean): { tooDeep: boolean; duplicateKeys: [number, number][] } {
  const duplicateKeys: [number, number][] = [];
  const pending: unknown[] = [root];
  const depths: number[] = [0];
  while (pending.length > 0) {
    const node = pending.pop();
    const depth = depths.pop() ?? 0;
    if (!isCollection(node)) continue;
    if (depth + 1 > maxNestingDepth) return { tooDeep: true, duplicateKeys };
    const keys = wantDuplicates && isMap(node) ? new Set<string>() : undefined;
    for (const item of node.items) {
      if (isPair(item)) {
        if (keys && isScalar(item.key) && item.key.range) {
          const key = String(item.key.value);
          if (keys.has(key)) duplicateKeys.push([item.key.range[0], item.key.range[1]]);
          else keys.add(key);
        }
        pending.push(item.key, item.value);
        depths.push(depth + 1, depth + 1);
      } else {
        pending.push(item);
        depths.push(depth + 1);
      }
    }
  }
  duplicateKeys.sort((a, b) => a[0] - b[0]);
  return { tooDeep: false, duplicateKeys };
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
export function decodeObject(def: ResourceDefinition, body: Buffer, format: BodyFormat, validation: FieldValidation, slice: TimeSlice): Promise<Decoded> {
  return runStepsYielding(decodeObjectSteps(def, body, format, validation), () => slice.boundary());
}

function* decodeObjectSteps(def: ResourceDefinition, body: Buffer, format: BodyFormat, validation: FieldValidation): Steps<Decoded> {
  // Protobuf carries only known fields, each once, with types fixed by the field numbers.
  if (format === 'protobuf') {
    try {
      const value = decodeProtobuf(body, def.schema);
      yield;
      return checkDecoded(def, value, [], validation);
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
    parsed = yield* parseBodySteps(text, format, validation !== 'Ignore');
  } catch (err) {
    // Upstream's transformDecodeError: the kind expected, the parser's complaint, the body's start.
    if (isStatusError(err, 'BadRequest')) {
      throw badRequest(`the object provided is unrecognized (must be of type ${def.kind}): ${err.message} (${summarize(text)})`);
    }
    throw err;
  }
  const { value, duplicates } = parsed;
  if (!isObject(value)) throw cannotBeHandled(def, `json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct`);
  yield;
  return checkDecoded(def, value, duplicates, validation);
}

/** Checks an already parsed object (a decoded body or the result of a patch) against its kind. */
export function checkDecoded(def: ResourceDefinition, value: Record<string, unknown>, duplicates: string[], validation: FieldValidation): Decoded {
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
  let unknown: string[];
  try {
    unknown = checkAgainstSchema(value, def.schema, def.kind);
  } catch (err) {
    if (err instanceof SchemaTypeError) throw cannotBeHandled(def, err.message);
    throw err;
  }
  if (value.metadata === undefined) value.metadata = {};
  const problems = [...unknown.map((f) => `unknown field "${f}"`), ...duplicates];
  if (problems.length && validation === 'Strict') throw cannotBeHandled(def, `strict decoding error: ${problems.join(', ')}`);
  return { object: value as KubeObject, warnings: validation === 'Warn' ? problems : [] };
}
