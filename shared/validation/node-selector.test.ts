import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldPath, fieldErrorString } from '../api/field.ts';
import type { NodeSelector } from '../api/node-selector.ts';
import { validateNodeSelector } from './node-selector.ts';

const validate = (selector: NodeSelector): string[] => validateNodeSelector(selector, FieldPath.root('spec').child('nodeSelector')).map(fieldErrorString);

describe('validateNodeSelector', () => {
  it('requires a term', () => {
    assert.deepEqual(validate({ nodeSelectorTerms: [] }), ['spec.nodeSelector.nodeSelectorTerms: Required value: must have at least one node selector term']);
    assert.deepEqual(validate({ nodeSelectorTerms: [{}] }), []);
  });

  it('applies the 1.28 rules to expressions and fields', () => {
    const selector = {
      nodeSelectorTerms: [
        {
          matchExpressions: [
            { key: 'a', operator: 'In' },
            { key: 'b', operator: 'DoesNotExist', values: ['x'] },
            { key: 'c', operator: 'Gt', values: ['1', '2'] },
            { key: 'd', operator: 'Near', values: ['any value!'] },
          ],
          matchFields: [
            { key: 'metadata.name', operator: 'In', values: ['a', 'B'] },
            { key: 'spec.podCIDR', operator: 'Exists' },
          ],
        },
      ],
    };
    const p = 'spec.nodeSelector.nodeSelectorTerms[0]';
    assert.deepEqual(validate(selector), [
      `${p}.matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
      `${p}.matchExpressions[1].values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`,
      `${p}.matchExpressions[2].values: Required value: must be specified single value when \`operator\` is 'Lt' or 'Gt'`,
      `${p}.matchExpressions[3].operator: Invalid value: "Near": not a valid selector operator`,
      `${p}.matchFields[0].values: Required value: must be only one value when \`operator\` is 'In' or 'NotIn' for node field selector`,
      `${p}.matchFields[0].values[1]: Invalid value: "B": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      `${p}.matchFields[1].operator: Invalid value: "Exists": not a valid selector operator`,
      `${p}.matchFields[1].key: Invalid value: "spec.podCIDR": not a valid field selector key`,
    ]);
  });
});
