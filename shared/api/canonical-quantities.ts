/**
 * resource.Quantity values as upstream stores and serves them: kube-apiserver decodes a quantity
 * into Go's Quantity and encodes it with String(), so `1024Mi` comes back as `1Gi` and the number
 * 110 as "110". corral rewrites them once, when an object is written, so every answer agrees.
 */
import { tryCanonicalQuantity } from './quantity.ts';
import type { Schema } from './schema.ts';
import { isObject } from './types.ts';

/** Whether a schema's subtree holds any Quantity (cached: schemas are long-lived). */
const holdsQuantity = new WeakMap<Schema, boolean>();

function isQuantitySchema(schema: Schema): boolean {
  return schema['x-corral-type'] === 'Quantity';
}

function hasQuantity(schema: Schema): boolean {
  let known = holdsQuantity.get(schema);
  if (known === undefined) {
    holdsQuantity.set(schema, false); // guards recursive schemas
    known =
      isQuantitySchema(schema) ||
      Object.values(schema.properties ?? {}).some(hasQuantity) ||
      (schema.additionalProperties !== undefined && hasQuantity(schema.additionalProperties)) ||
      (schema.items !== undefined && hasQuantity(schema.items));
    holdsQuantity.set(schema, known);
  }
  return known;
}

/**
 * A quantity's canonical text. A JSON number is read as its decimal text (Go reads the literal;
 * JSON.parse has kept only the number). Surrounding whitespace goes, as upstream's UnmarshalJSON
 * trims it; anything else, or text upstream would not parse, is returned as it came.
 */
function canonicalValue(value: unknown): unknown {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  const canonical = text === undefined ? null : tryCanonicalQuantity(text);
  return canonical ?? value;
}

function rewrite(value: unknown, schema: Schema): unknown {
  if (isQuantitySchema(schema)) return canonicalValue(value);
  if (!hasQuantity(schema)) return value;
  if (Array.isArray(value)) {
    if (schema.items) for (let i = 0; i < value.length; i++) value[i] = rewrite(value[i], schema.items);
  } else if (isObject(value)) {
    for (const [name, present] of Object.entries(value)) {
      const property = schema.properties?.[name] ?? schema.additionalProperties;
      if (property && present !== undefined) value[name] = rewrite(present, property);
    }
  }
  return value;
}

/**
 * Rewrites (in place) every value whose schema is a Quantity, in nested objects, maps and lists,
 * to upstream's canonical text, and returns `value`. Subtrees without quantities are skipped;
 * values that are no quantity are left for validation to report.
 */
export function canonicalizeQuantities<T extends Record<string, unknown>>(value: T, schema: Schema): T {
  rewrite(value, schema);
  return value;
}
