import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FieldPath, fieldErrorString } from '../api/field.ts';
import type { Affinity } from '../api/pod-scheduling.ts';
import { validateAffinity } from './pod-affinity.ts';

const check = (affinity: Affinity): string[] => validateAffinity(affinity, FieldPath.root('spec').child('affinity')).map(fieldErrorString);
const na = 'spec.affinity.nodeAffinity';
const pa = 'spec.affinity.podAffinity';
const paa = 'spec.affinity.podAntiAffinity';
const dns1123Label =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const namePartRegex =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('validateAffinity', () => {
  it('accepts valid node, pod and anti-affinity', () => {
    assert.deepEqual(
      check({
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }],
          },
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 100, preference: { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] } },
          ],
        },
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              labelSelector: { matchLabels: { app: 'db' } },
              topologyKey: 'topology.kubernetes.io/zone',
              namespaces: ['data'],
              matchLabelKeys: ['pod-template-hash'],
            },
          ],
        },
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 1,
              podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname', mismatchLabelKeys: ['tenant'] },
            },
          ],
        },
      }),
      [],
    );
  });

  const cases: [string, Affinity, string[]][] = [
    [
      'a required node selector without terms',
      { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } },
      [`${na}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term`],
    ],
    [
      'preferred node terms with a bad weight or requirement',
      {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 0, preference: { matchExpressions: [{ key: 'zone', operator: 'Near', values: ['a'] }] } },
            { weight: 101, preference: { matchFields: [{ key: 'metadata.uid', operator: 'In', values: ['x'] }] } },
          ],
        },
      },
      [
        `${na}.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100`,
        `${na}.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator`,
        `${na}.preferredDuringSchedulingIgnoredDuringExecution[1].weight: Invalid value: 101: must be in the range 1-100`,
        `${na}.preferredDuringSchedulingIgnoredDuringExecution[1].preference.matchFields[0].key: Invalid value: "metadata.uid": not a valid field selector key`,
      ],
    ],
    [
      'a pod affinity term without topology key',
      { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } } }] } },
      [
        `${pa}.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty`,
        `${pa}.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must be non-empty`,
        `${pa}.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": ${namePartRegex}`,
      ],
    ],
    [
      'bad selectors, namespaces and weights in pod anti-affinity',
      {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 200,
              podAffinityTerm: {
                labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: [] }] },
                namespaceSelector: { matchLabels: { 'bad key!': 'x' } },
                namespaces: ['Data'],
                topologyKey: 'kubernetes.io/hostname',
              },
            },
          ],
        },
      },
      [
        `${paa}.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 200: must be in the range 1-100`,
        `${paa}.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector.matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
        `${paa}.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.namespaceSelector.matchLabels: Invalid value: "bad key!": ${namePartRegex}`,
        `${paa}.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.namespace: Invalid value: "Data": ${dns1123Label}`,
      ],
    ],
    [
      'label keys without selector, bad ones, and keys both matched and mismatched',
      {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: 'zone', matchLabelKeys: ['a'] },
            { topologyKey: 'zone', labelSelector: {}, matchLabelKeys: ['tier', 'bad key'], mismatchLabelKeys: ['tier'] },
          ],
        },
      },
      [
        `${pa}.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set`,
        `${pa}.requiredDuringSchedulingIgnoredDuringExecution[1].matchLabelKeys[1]: Invalid value: "bad key": ${namePartRegex}`,
        `${pa}.requiredDuringSchedulingIgnoredDuringExecution[1].matchLabelKeys[0]: Invalid value: "tier": exists in both matchLabelKeys and mismatchLabelKeys`,
      ],
    ],
    [
      'a match label key the selector already names',
      {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              topologyKey: 'zone',
              labelSelector: { matchLabels: { tier: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] },
              matchLabelKeys: ['tier'],
            },
          ],
        },
      },
      [`${pa}.requiredDuringSchedulingIgnoredDuringExecution[0][0]: Invalid value: "tier": exists in both matchLabelKeys and labelSelector`],
    ],
  ];
  for (const [name, affinity, expected] of cases) {
    it(`rejects ${name}`, () => assert.deepEqual(check(affinity), expected));
  }
});
