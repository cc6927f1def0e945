/**
 * The gnostic OpenAPIv2 protobuf form of a Swagger 2.0 document
 * (github.com/google/gnostic-models/openapiv2/OpenAPIv2.proto), which client-go (kubectl) asks
 * /openapi/v2 for with `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`.
 *
 * Written with the codec's protobuf writer (shared/codec/protobuf/writer.ts), field by field in
 * the order called, under proto3's rules: strings, bools and numbers at their default are not
 * written; embedded messages are, even when empty, since their presence is meaningful.
 */
import { isObject } from '../../../shared/api/types.ts';
import { WIRE_BYTES, WIRE_FIXED64, WIRE_VARINT } from '../../../shared/codec/protobuf/wire.ts';
import { withWriter, type Writer } from '../../../shared/codec/protobuf/writer.ts';

type JsonObject = Record<string, unknown>;

/** gnostic's proto3 fields on a Writer. Values come from JSON: a value of another type is not written. */
class Proto3Fields {
  constructor(private readonly w: Writer) {}

  private tag(field: number, wireType: number): void {
    this.w.uint32(field * 8 + wireType);
  }

  string(field: number, value: unknown): this {
    if (typeof value === 'string' && value !== '') {
      this.tag(field, WIRE_BYTES);
      this.w.string(value);
    }
    return this;
  }

  /** Repeated strings: every element is written, empty ones included. */
  strings(field: number, values: unknown): this {
    if (!Array.isArray(values)) return this;
    for (const v of values) {
      if (typeof v !== 'string') continue;
      this.tag(field, WIRE_BYTES);
      this.w.string(v);
    }
    return this;
  }

  bool(field: number, value: unknown): this {
    return value === true ? this.oneofBool(field, true) : this;
  }

  /** A bool that is a oneof member: written even when false, because presence carries meaning. */
  oneofBool(field: number, value: boolean): this {
    this.tag(field, WIRE_VARINT);
    this.w.byte(value ? 1 : 0);
    return this;
  }

  int64(field: number, value: unknown): this {
    if (typeof value === 'number' && Number.isInteger(value) && value !== 0) {
      this.tag(field, WIRE_VARINT);
      this.w.int64(value);
    }
    return this;
  }

  double(field: number, value: unknown): this {
    if (typeof value === 'number' && value !== 0) {
      this.tag(field, WIRE_FIXED64);
      this.w.double(value);
    }
    return this;
  }

  /** An embedded message whose fields `write` writes. */
  message(field: number, write: () => void): this {
    this.tag(field, WIRE_BYTES);
    const at = this.w.begin();
    write();
    this.w.end(at);
    return this;
  }
}

/** gnostic keeps any JSON value as its YAML text (Any field 2); JSON text is YAML, and clients read it with a YAML parser. */
function any(f: Proto3Fields, field: number, value: unknown): void {
  f.message(field, () => f.string(2, JSON.stringify(value)));
}

/** A Named* entry {name=1, value=2}. */
function named(f: Proto3Fields, field: number, name: string, writeValue: () => void): void {
  f.message(field, () => f.string(1, name).message(2, writeValue));
}

/** `x-` keys as NamedAny entries in the given field. */
function extensions(f: Proto3Fields, field: number, obj: JsonObject): void {
  for (const [key, value] of Object.entries(obj)) if (key.startsWith('x-')) named(f, field, key, () => f.string(2, JSON.stringify(value)));
}

function schema(f: Proto3Fields, s: JsonObject): void {
  f.string(1, s.$ref).string(2, s.format).string(3, s.title).string(4, s.description);
  if ('default' in s) any(f, 5, s.default);
  f.double(6, s.multipleOf).double(7, s.maximum).bool(8, s.exclusiveMaximum).double(9, s.minimum).bool(10, s.exclusiveMinimum);
  f.int64(11, s.maxLength).int64(12, s.minLength).string(13, s.pattern);
  f.int64(14, s.maxItems).int64(15, s.minItems).bool(16, s.uniqueItems);
  f.int64(17, s.maxProperties).int64(18, s.minProperties).strings(19, s.required);
  if (Array.isArray(s.enum)) for (const v of s.enum) any(f, 20, v);
  const additional = s.additionalProperties;
  if (isObject(additional)) f.message(21, () => f.message(1, () => schema(f, additional)));
  else if (typeof additional === 'boolean') f.message(21, () => f.oneofBool(2, additional));
  const type = s.type;
  if (typeof type === 'string') f.message(22, () => f.strings(1, [type]));
  else if (Array.isArray(type)) f.message(22, () => f.strings(1, type));
  const items = s.items;
  if (isObject(items)) f.message(23, () => f.message(1, () => schema(f, items)));
  else if (Array.isArray(items)) f.message(23, () => items.filter(isObject).forEach((item) => f.message(1, () => schema(f, item))));
  if (Array.isArray(s.allOf)) for (const sub of s.allOf.filter(isObject)) f.message(24, () => schema(f, sub));
  const properties = s.properties;
  if (isObject(properties)) {
    f.message(25, () => {
      for (const [name, sub] of Object.entries(properties)) if (isObject(sub)) named(f, 1, name, () => schema(f, sub));
    });
  }
  f.string(26, s.discriminator).bool(27, s.readOnly);
  if ('example' in s) any(f, 30, s.example);
  extensions(f, 31, s);
}

/** A ParametersItem: a reference, a body parameter, or a query/path/header/formData parameter. */
function parametersItem(f: Proto3Fields, param: JsonObject): void {
  const ref = param.$ref;
  if (typeof ref === 'string') {
    f.message(2, () => f.string(1, ref));
    return;
  }
  if (param.in === 'body') {
    const bodySchema = param.schema;
    f.message(1, () =>
      f.message(1, () => {
        f.string(1, param.description).string(2, param.name).string(3, param.in).bool(4, param.required);
        if (isObject(bodySchema)) f.message(5, () => schema(f, bodySchema));
        extensions(f, 6, param);
      }),
    );
    return;
  }
  // Query and formData carry allow_empty_value at 5 and start their shared fields at 6; path and header at 5.
  const variant = { header: 1, formData: 2, query: 3, path: 4 }[String(param.in)] ?? 3;
  const base = variant === 2 || variant === 3 ? 6 : 5;
  const nonBody = (): void => {
    f.bool(1, param.required).string(2, param.in).string(3, param.description).string(4, param.name);
    if (base === 6) f.bool(5, param.allowEmptyValue);
    f.string(base, param.type)
      .string(base + 1, param.format)
      .string(base + 3, param.collectionFormat);
    if ('default' in param) any(f, base + 4, param.default);
    f.double(base + 5, param.maximum)
      .bool(base + 6, param.exclusiveMaximum)
      .double(base + 7, param.minimum)
      .bool(base + 8, param.exclusiveMinimum);
    f.int64(base + 9, param.maxLength)
      .int64(base + 10, param.minLength)
      .string(base + 11, param.pattern);
    f.int64(base + 12, param.maxItems)
      .int64(base + 13, param.minItems)
      .bool(base + 14, param.uniqueItems);
    if (Array.isArray(param.enum)) for (const v of param.enum) any(f, base + 15, v);
    f.double(base + 16, param.multipleOf);
    extensions(f, base + 17, param);
  };
  f.message(1, () => f.message(2, () => f.message(variant, nonBody)));
}

function parameters(f: Proto3Fields, field: number, list: unknown): void {
  if (Array.isArray(list)) for (const param of list.filter(isObject)) f.message(field, () => parametersItem(f, param));
}

function operation(f: Proto3Fields, op: JsonObject): void {
  f.strings(1, op.tags).string(2, op.summary).string(3, op.description).string(5, op.operationId).strings(6, op.produces).strings(7, op.consumes);
  parameters(f, 8, op.parameters);
  const responses = op.responses;
  if (isObject(responses)) {
    f.message(9, () => {
      for (const [code, response] of Object.entries(responses)) {
        if (!isObject(response)) continue;
        const responseSchema = response.schema;
        // NamedResponseValue → ResponseValue field 1: a Response.
        named(f, 1, code, () =>
          f.message(1, () => {
            f.string(1, response.description);
            if (isObject(responseSchema)) f.message(2, () => f.message(1, () => schema(f, responseSchema)));
            extensions(f, 5, response);
          }),
        );
      }
    });
  }
  f.strings(10, op.schemes).bool(11, op.deprecated);
  extensions(f, 13, op);
}

const pathItemMethods = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 } as const;

function pathItem(f: Proto3Fields, item: JsonObject): void {
  f.string(1, item.$ref);
  for (const [method, field] of Object.entries(pathItemMethods)) {
    const op = item[method];
    if (isObject(op)) f.message(field, () => operation(f, op));
  }
  parameters(f, 9, item.parameters);
  extensions(f, 10, item);
}

/** The gnostic OpenAPIv2 Document of a Swagger 2.0 document. */
export function openApiV2Protobuf(doc: object): Buffer {
  const d: JsonObject = isObject(doc) ? doc : {};
  return withWriter((w) => {
    const f = new Proto3Fields(w);
    f.string(1, d.swagger);
    const info = d.info;
    if (isObject(info)) {
      f.message(2, () => {
        f.string(1, info.title).string(2, info.version).string(3, info.description).string(4, info.termsOfService);
        extensions(f, 7, info);
      });
    }
    f.string(3, d.host).string(4, d.basePath).strings(5, d.schemes).strings(6, d.consumes).strings(7, d.produces);
    const paths = d.paths;
    if (isObject(paths)) {
      f.message(8, () => {
        extensions(f, 1, paths);
        for (const [path, item] of Object.entries(paths)) if (!path.startsWith('x-') && isObject(item)) named(f, 2, path, () => pathItem(f, item));
      });
    }
    const definitions = d.definitions;
    if (isObject(definitions)) {
      f.message(9, () => {
        for (const [name, s] of Object.entries(definitions)) if (isObject(s)) named(f, 1, name, () => schema(f, s));
      });
    }
    const parameterDefinitions = d.parameters;
    if (isObject(parameterDefinitions)) {
      f.message(10, () => {
        // ParameterDefinitions hold a Parameter, which is a ParametersItem's field 1.
        for (const [name, param] of Object.entries(parameterDefinitions))
          if (isObject(param)) named(f, 1, name, () => f.message(1, () => parametersItem(f, param)));
      });
    }
    if (Array.isArray(d.security)) {
      for (const requirement of d.security.filter(isObject)) {
        f.message(12, () => {
          for (const [name, scopes] of Object.entries(requirement)) named(f, 1, name, () => f.strings(1, scopes));
        });
      }
    }
    const securityDefinitions = d.securityDefinitions;
    if (isObject(securityDefinitions)) {
      f.message(13, () => {
        for (const [name, def] of Object.entries(securityDefinitions)) {
          if (!isObject(def)) continue;
          // Only API key schemes (SecurityDefinitionsItem field 2) occur in Kubernetes documents.
          named(f, 1, name, () =>
            f.message(2, () => {
              f.string(1, def.type).string(2, def.name).string(3, def.in).string(4, def.description);
              extensions(f, 5, def);
            }),
          );
        }
      });
    }
    extensions(f, 16, d);
  });
}
