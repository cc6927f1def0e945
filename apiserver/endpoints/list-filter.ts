/**
 * Builds a store ListFilter from the labelSelector and fieldSelector query values of a kind:
 * malformed selectors and unsupported field labels are 400s with upstream's messages.
 */
import { badRequest } from '../../shared/api/errors.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import { SelectorParseError } from '../../shared/selectors/errors.ts';
import {
  fieldLabelNotSupportedMessage,
  matchesFields,
  notKnownFieldSelectorMessage,
  parseFieldSelector,
  unsupportedFieldLabels,
  fieldSelectorIsEverything,
} from '../../shared/selectors/fields.ts';
import { isEverything, matches, parseLabelSelector } from '../../shared/selectors/labels.ts';
import type { ResourceDefinition } from '../registry/definition.ts';
import { everything, type ListFilter } from '../registry/store.ts';

function parsed<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof SelectorParseError) throw badRequest(err.message);
    throw err;
  }
}

/** The fields a kind can be selected by: metadata.name, metadata.namespace and its own. */
export function fieldReader(def: ResourceDefinition): (obj: KubeObject, field: string) => string | undefined {
  const own = def.fieldSelectors ?? {};
  return (obj, field) => {
    if (field === 'metadata.name') return obj.metadata.name ?? '';
    if (field === 'metadata.namespace') return obj.metadata.namespace ?? '';
    const read = own[field];
    return read ? (read(obj) ?? '') : undefined;
  };
}

export function buildListFilter(def: ResourceDefinition, labelSelector: string, fieldSelector: string): ListFilter {
  const labels = parsed(() => parseLabelSelector(labelSelector));
  const fields = parsed(() => parseFieldSelector(fieldSelector));
  const supported = new Set(['metadata.name', 'metadata.namespace', ...Object.keys(def.fieldSelectors ?? {})]);
  const [unsupported] = unsupportedFieldLabels(fields, supported);
  if (unsupported !== undefined) {
    throw badRequest(def.fieldSelectors ? fieldLabelNotSupportedMessage(unsupported) : notKnownFieldSelectorMessage(unsupported));
  }
  const noLabels = isEverything(labels);
  const noFields = fieldSelectorIsEverything(fields);
  if (noLabels && noFields) return everything;
  const read = fieldReader(def);
  return {
    selective: true,
    matches: (obj) => (noLabels || matches(labels, obj.metadata.labels)) && (noFields || matchesFields(fields, (f) => read(obj, f))),
  };
}
