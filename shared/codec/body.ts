/**
 * Request and file bodies (JSON or YAML) as plain values, with upstream's wording for what is wrong
 * with them: Go's encoding/json syntax messages, sigs.k8s.io/yaml's conversion errors, duplicated
 * keys as strict decoding reports them. Shared by the API server's decoder and the node agent's
 * configuration files. Malformed or hostile input (alias bombs, tags with no JSON form, nesting
 * beyond maxNestingDepth) is a 400 StatusError, never a failure of the caller.
 */
import { isCollection, isMap, isPair, isScalar, LineCounter, parseDocument } from 'yaml';
import { badRequest } from '../api/errors.ts';
import { goQuote } from '../go/format.ts';
import { runSteps, type Steps } from '../apply/steps.ts';
import { findDuplicateKeysSteps, JsonSyntaxError } from './json.ts';
import { parseJsonSteps } from './json-sliced.ts';
import { exceedsNestingDepth, maxNestingDepth, nestingTooDeepMessage } from './nesting.ts';

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

/** parseBody in steps of one pass over the text or the value each (shared/apply/steps.ts). */
export function* parseBodySteps(text: string, format: 'json' | 'yaml', wantDuplicates: boolean): Steps<{ value: unknown; duplicates: string[] }> {
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
  // sigs.k8s.io/yaml hands the converted document to encoding/json, which has no form for these.
  if (inspected.nonFinite !== undefined) {
    throw badRequest(`error converting YAML to JSON: json: unsupported value: ${goFloatName(inspected.nonFinite)}`);
  }
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

/** Go's name of a float with no JSON form (strconv's): `+Inf`, `-Inf`, `NaN`. */
function goFloatName(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  return value > 0 ? '+Inf' : '-Inf';
}

interface YamlInspection {
  tooDeep: boolean;
  /** Source ranges of keys repeated within their map, in document order (when asked for). */
  duplicateKeys: [number, number][];
  /** An infinite or NaN number of the document (`.inf`, `.nan`), which JSON cannot hold. */
  nonFinite?: number;
}

/**
 * One iterative walk over a YAML node tree: whether collections nest beyond maxNestingDepth, the
 * numbers JSON cannot hold, and (when asked) the keys repeated within their map. The parser's own
 * uniqueKeys check compares every key with every other (120,000 labels: minutes).
 */
function inspectYaml(root: unknown, wantDuplicates: boolean): YamlInspection {
  const duplicateKeys: [number, number][] = [];
  const pending: unknown[] = [root];
  const depths: number[] = [0];
  let nonFinite: number | undefined;
  while (pending.length > 0) {
    const node = pending.pop();
    const depth = depths.pop() ?? 0;
    if (isScalar(node) && typeof node.value === 'number' && !Number.isFinite(node.value)) nonFinite ??= node.value;
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
  return { tooDeep: false, duplicateKeys, nonFinite };
}
