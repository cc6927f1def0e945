import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldPath, fieldErrorString } from '../api/field.ts';
import type { LabelSelectorObject } from '../selectors/labels.ts';
import { hasInvalidLabelValue, validateLabelSelector } from './label-selector.ts';

const labelValueMessage =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const validate = (selector: LabelSelectorObject | undefined, allowInvalidValues = false): string[] =>
  validateLabelSelector(selector, allowInvalidValues, FieldPath.root('nodeTopology')).map(fieldErrorString);

describe('validateLabelSelector', () => {
  it('accepts no selector, an empty one and a valid one', () => {
    assert.deepEqual(validate(undefined), []);
    assert.deepEqual(validate({}), []);
    assert.deepEqual(
      validate({ matchLabels: { 'topology.kubernetes.io/zone': 'a' }, matchExpressions: [{ key: 'rack', operator: 'In', values: ['r1'] }] }),
      [],
    );
  });

  it('checks labels, operators, their values and keys', () => {
    const errs = validate({
      matchLabels: { 'bad key!': 'v', ok: 'bad value!' },
      matchExpressions: [
        { key: 'a', operator: 'In' },
        { key: 'b', operator: 'Exists', values: ['x'] },
        { key: 'c', operator: 'Gt', values: ['1'] },
        { key: 'd', operator: 'NotIn', values: ['bad value!'] },
      ],
    });
    assert.ok(errs[0]?.startsWith('nodeTopology.matchLabels: Invalid value: "bad key!": name part '));
    assert.deepEqual(errs.slice(1), [
      `nodeTopology.matchLabels: Invalid value: "bad value!": ${labelValueMessage}`,
      "nodeTopology.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "nodeTopology.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'nodeTopology.matchExpressions[2].operator: Invalid value: "Gt": not a valid selector operator',
      `nodeTopology.matchExpressions[3].values[0]: Invalid value: "bad value!": ${labelValueMessage}`,
    ]);
  });

  it('lets invalid values of match expressions pass where the stored selector holds some already', () => {
    const selector = { matchExpressions: [{ key: 'k', operator: 'In', values: ['bad value!'] }] };
    assert.equal(hasInvalidLabelValue(selector), true);
    assert.equal(hasInvalidLabelValue({ matchExpressions: [{ key: 'k', operator: 'In', values: ['good'] }] }), false);
    assert.equal(hasInvalidLabelValue(undefined), false);
    assert.deepEqual(validate(selector, true), []);
  });
});
