/**
 * Rendering paths and components into OpenAPI 3.0 and Swagger 2.0 documents, as upstream's
 * builders write them: paths sorted, parameters common to a path's operations moved to the path,
 * only the components the paths refer to, references as `#/components/schemas/` or `#/definitions/`.
 */
import { isObject } from '../../../shared/api/types.ts';
import type { Components, DocSchema, SpecVersion } from './components.ts';
import { anyMediaType, type Operation, type Parameter, type PathSet } from './operations.ts';

/** `info.version`: the release corral follows (shared/version.ts kubernetesVersion) without its build suffix, as upstream trims it. */
const infoVersion = 'v1.32.0';

export type JsonObject = Record<string, unknown>;

const refPrefix = (version: SpecVersion): string => (version === 'v3' ? '#/components/schemas/' : '#/definitions/');

/**
 * A reference with siblings is wrapped in allOf in v3, where $ref must stand alone, as upstream does.
 * v2 documents carry no defaults: upstream prunes them from /openapi/v2.
 */
function renderSchema(schema: DocSchema, version: SpecVersion): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined || key === '$ref' || key.startsWith('x-corral-') || (key === 'default' && version === 'v2')) continue;
    if (key === 'properties' && schema.properties) {
      out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, renderSchema(v, version)]));
    } else if ((key === 'additionalProperties' || key === 'items') && isObject(value)) {
      out[key] = renderSchema(value, version);
    } else if (key === 'oneOf' && schema.oneOf) {
      out.oneOf = schema.oneOf.map((s) => renderSchema(s, version));
    } else {
      out[key] = value;
    }
  }
  if (schema.$ref === undefined) return out;
  const reference = { $ref: refPrefix(version) + schema.$ref };
  if (Object.keys(out).length === 0) return reference;
  return version === 'v3' ? { allOf: [reference], ...out } : { ...out, $ref: reference.$ref };
}

const parameterKey = (param: Parameter): string => `${param.in}:${param.name}`;

const byName = (a: Parameter, b: Parameter): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Parameters every operation of a path takes move to the path, as upstream's builders do. */
function commonParameters(operations: readonly Operation[]): Set<string> {
  const [first, ...others] = operations;
  const common = new Set((first?.parameters ?? []).map(parameterKey));
  for (const op of others) {
    const keys = new Set(op.parameters.map(parameterKey));
    for (const key of common) if (!keys.has(key)) common.delete(key);
  }
  return common;
}

function renderParameter(param: Parameter, version: SpecVersion): JsonObject {
  const required = param.in === 'path' ? { required: true } : {};
  if (version === 'v2') return { uniqueItems: true, type: param.type, description: param.description, name: param.name, in: param.in, ...required };
  return { name: param.name, in: param.in, description: param.description, ...required, schema: { type: param.type, uniqueItems: true } };
}

function extensions(op: Operation): JsonObject {
  return {
    ...(op.action ? { 'x-kubernetes-action': op.action } : {}),
    ...(op.gvk ? { 'x-kubernetes-group-version-kind': op.gvk } : {}),
  };
}

function renderOperation(op: Operation, common: Set<string>, version: SpecVersion): JsonObject {
  const own = op.parameters
    .filter((param) => !common.has(parameterKey(param)))
    .sort(byName)
    .map((param) => renderParameter(param, version));
  const schemaRef = (name: string): JsonObject => ({ $ref: refPrefix(version) + name });
  const body = op.body;
  const required = body?.required ? { required: true } : {};
  const responses: JsonObject = {};
  if (version === 'v3') {
    for (const r of op.responses) {
      responses[r.code] = { description: r.description, content: Object.fromEntries(op.produces.map((type) => [type, { schema: schemaRef(r.schema) }])) };
    }
    responses['401'] = { description: 'Unauthorized' };
    return {
      tags: [op.tag],
      description: op.description,
      operationId: op.operationId,
      ...(own.length ? { parameters: own } : {}),
      ...(body
        ? { requestBody: { content: Object.fromEntries(body.contentTypes.map((type) => [type, { schema: schemaRef(body.schema) }])), ...required } }
        : {}),
      responses,
      ...extensions(op),
    };
  }
  for (const r of op.responses) responses[r.code] = { description: r.description, schema: schemaRef(r.schema) };
  responses['401'] = { description: 'Unauthorized' };
  const all = [...(body ? [{ name: 'body', in: 'body', ...required, schema: schemaRef(body.schema) }] : []), ...own];
  return {
    description: op.description,
    consumes: [...(body?.contentTypes ?? anyMediaType)],
    produces: [...op.produces],
    schemes: ['https'],
    tags: [op.tag],
    operationId: op.operationId,
    ...(all.length ? { parameters: all } : {}),
    responses,
    ...extensions(op),
  };
}

function renderPaths(paths: PathSet, version: SpecVersion): JsonObject {
  const out: JsonObject = {};
  for (const path of [...paths.paths.keys()].sort()) {
    const operations = paths.paths.get(path) ?? [];
    const common = commonParameters(operations);
    const item: JsonObject = {};
    for (const op of operations) item[op.method] = renderOperation(op, common, version);
    const shared = (operations[0]?.parameters ?? []).filter((param) => common.has(parameterKey(param))).sort(byName);
    if (shared.length) item.parameters = shared.map((param) => renderParameter(param, version));
    out[path] = item;
  }
  return out;
}

/** Component names a schema refers to. */
function schemaRefs(schema: DocSchema, into: Set<string>): void {
  if (schema.$ref !== undefined) into.add(schema.$ref);
  for (const child of Object.values(schema.properties ?? {})) schemaRefs(child, into);
  if (schema.additionalProperties) schemaRefs(schema.additionalProperties, into);
  if (schema.items) schemaRefs(schema.items, into);
  for (const child of schema.oneOf ?? []) schemaRefs(child, into);
}

/** The components the paths refer to, directly or through other components, rendered and sorted by name. */
function renderComponents(paths: PathSet, components: Components): JsonObject {
  const wanted = new Set<string>();
  for (const operations of paths.paths.values()) {
    for (const op of operations) {
      for (const r of op.responses) wanted.add(r.schema);
      if (op.body) wanted.add(op.body.schema);
    }
  }
  const done = new Set<string>();
  const queue = [...wanted];
  while (queue.length) {
    const name = queue.pop() ?? '';
    if (done.has(name)) continue;
    const schema = components.schemas.get(name);
    if (!schema) throw new Error(`openapi: no component schema ${name}`);
    done.add(name);
    const refs = new Set<string>();
    schemaRefs(schema, refs);
    queue.push(...refs);
  }
  const out: JsonObject = {};
  for (const name of [...done].sort()) out[name] = renderSchema(components.schemas.get(name) ?? {}, components.version);
  return out;
}

const bearerToken = { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' };

export function v3Document(paths: PathSet, components: Components): JsonObject {
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: infoVersion },
    paths: renderPaths(paths, 'v3'),
    components: { schemas: renderComponents(paths, components), securitySchemes: { BearerToken: bearerToken } },
  };
}

/** The Swagger 2.0 document of `paths`, with the components they refer to as its definitions. */
export function v2Document(paths: PathSet, components: Components): JsonObject {
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: infoVersion },
    paths: renderPaths(paths, 'v2'),
    definitions: renderComponents(paths, components),
    securityDefinitions: { BearerToken: bearerToken },
    security: [{ BearerToken: [] }],
  };
}
