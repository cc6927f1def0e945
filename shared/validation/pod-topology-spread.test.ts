import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FieldPath, fieldErrorString } from '../api/field.ts';
import type { TopologySpreadConstraint } from '../api/pod.ts';
import { validateTopologySpreadConstraints } from './pod-topology-spread.ts';

const check = (constraints: TopologySpreadConstraint[]): string[] =>
  validateTopologySpreadConstraints(constraints, FieldPath.root('spec').child('topologySpreadConstraints')).map(fieldErrorString);
const tsc = 'spec.topologySpreadConstraints';

describe('validateTopologySpreadConstraints', () => {
  it('accepts valid constraints', () => {
    assert.deepEqual(
      check([
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { app: 'web' } },
          minDomains: 3,
          nodeAffinityPolicy: 'Honor',
          nodeTaintsPolicy: 'Ignore',
          matchLabelKeys: ['pod-template-hash'],
        },
        { maxSkew: 2, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
      ]),
      [],
    );
  });

  const cases: [string, TopologySpreadConstraint[], string[]][] = [
    [
      'a zero skew, no topology key and an unknown action',
      [{ maxSkew: 0, whenUnsatisfiable: 'Maybe' }],
      [
        `${tsc}[0].maxSkew: Invalid value: 0: must be greater than zero`,
        `${tsc}[0].topologyKey: Required value: can not be empty`,
        `${tsc}[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"`,
      ],
    ],
    [
      'a repeated (topologyKey, whenUnsatisfiable) pair',
      [
        { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
        { maxSkew: 2, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
      ],
      [`${tsc}[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"`],
    ],
    [
      'minDomains that is not positive or comes with ScheduleAnyway',
      [
        { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', minDomains: 0 },
        { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', minDomains: 2 },
      ],
      [
        `${tsc}[0].minDomains: Invalid value: 0: must be greater than zero`,
        `${tsc}[1].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway`,
      ],
    ],
    [
      'unknown node inclusion policies',
      [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', nodeAffinityPolicy: 'Always', nodeTaintsPolicy: 'Never' }],
      [
        `${tsc}[0].nodeAffinityPolicy: Unsupported value: "Always": supported values: "Honor", "Ignore"`,
        `${tsc}[0].nodeTaintsPolicy: Unsupported value: "Never": supported values: "Honor", "Ignore"`,
      ],
    ],
    [
      'match label keys without selector, or already in it',
      [
        { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', matchLabelKeys: ['app'] },
        { maxSkew: 1, topologyKey: 'host', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } }, matchLabelKeys: ['app'] },
      ],
      [
        `${tsc}[0].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set`,
        `${tsc}[1].matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector`,
      ],
    ],
    [
      'a bad label selector',
      [
        {
          maxSkew: 1,
          topologyKey: 'zone',
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchExpressions: [{ key: 'app', operator: 'Exists', values: ['x'] }] },
        },
      ],
      [`${tsc}[0].labelSelector.matchExpressions[0].values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`],
    ],
  ];
  for (const [name, constraints, expected] of cases) {
    it(`rejects ${name}`, () => assert.deepEqual(check(constraints), expected));
  }
});
