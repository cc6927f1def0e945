import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../api/pod.ts';
import { errors, pod } from './pod-testing.ts';

const r = 'spec.containers[0].resources';
const dns1123Label =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const subdomain =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('resources', () => {
  it('accepts extended resources, whole hugepages with memory, claims and overhead', () => {
    const p = pod(
      { resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu-template' }], overhead: { cpu: '250m', memory: '120Mi' } },
      {
        resources: {
          limits: { 'example.com/gpu': 2, 'hugepages-2Mi': '4Mi', memory: '1Gi' },
          requests: { cpu: '100m' },
          claims: [{ name: 'gpu', request: 'first' }],
        },
        resizePolicy: [
          { resourceName: 'cpu', restartPolicy: 'NotRequired' },
          { resourceName: 'memory', restartPolicy: 'RestartContainer' },
        ],
      },
    );
    assert.deepEqual(errors(p), []);
  });

  const cases: [string, Pod, string[]][] = [
    [
      'extended resource requests that differ from the limits or have none',
      pod(
        { initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { 'example.com/gpu': 1 } } }] },
        {
          resources: { limits: { 'example.com/gpu': 2 }, requests: { 'example.com/gpu': 1 } },
        },
      ),
      [
        `${r}.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2`,
        'spec.initContainers[0].resources.limits: Required value: Limit must be set for non overcommitable resources',
      ],
    ],
    [
      'fractions of an extended resource',
      pod({}, { resources: { limits: { 'example.com/gpu': '500m' } } }),
      [`${r}.limits[example.com/gpu]: Invalid value: "500m": must be an integer`, `${r}.requests[example.com/gpu]: Invalid value: "500m": must be an integer`],
    ],
    ['hugepages without cpu or memory', pod({}, { resources: { limits: { 'hugepages-2Mi': '4Mi' } } }), [`${r}: Forbidden: HugePages require cpu or memory`]],
    [
      'hugepages that are not whole pages',
      pod({}, { resources: { limits: { 'hugepages-2Mi': '3Mi', memory: '1Gi' } } }),
      [
        `${r}.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi`,
        `${r}.requests[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi`,
      ],
    ],
    [
      'container claims that are unnamed, repeated, malformed or unknown',
      pod(
        { resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }] },
        {
          resources: {
            claims: [{ name: '' }, { name: 'gpu' }, { name: 'gpu' }, { name: 'other', request: 'Bad_Req' }],
          },
        },
      ),
      [
        `${r}.claims[0]: Required value`,
        `${r}.claims[2]: Duplicate value: "gpu"`,
        `${r}.claims[3].request: Invalid value: "Bad_Req": ${dns1123Label}`,
        `${r}.claims[3]: Not found: "other": must be one of the names in pod.spec.resourceClaims: gpu`,
      ],
    ],
    [
      'a whole claim after one of its requests, without pod claims',
      pod({}, { resources: { claims: [{ name: 'gpu', request: 'a' }, { name: 'gpu' }] } }),
      [
        `${r}.claims[0]: Not found: "gpu": must be one of the names in pod.spec.resourceClaims which is empty`,
        `${r}.claims[1]: Duplicate value: "gpu"`,
        `${r}.claims[1]: Not found: "gpu": must be one of the names in pod.spec.resourceClaims which is empty`,
      ],
    ],
    [
      'pod resource claims with two sources, none, a repeated or bad name',
      pod({
        resourceClaims: [
          { name: 'a', resourceClaimName: 'x', resourceClaimTemplateName: 'y' },
          { name: 'a' },
          { name: 'B_', resourceClaimName: 'Bad_Name' },
          {
            resourceClaimName: 'z',
          },
        ],
      }),
      [
        'spec.resourceClaims[0]: Invalid value: {"name":"a","resourceClaimName":"x","resourceClaimTemplateName":"y"}: at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified',
        'spec.resourceClaims[1].name: Duplicate value: "a"',
        'spec.resourceClaims[1]: Invalid value: {"name":"a"}: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`',
        `spec.resourceClaims[2].name: Invalid value: "B_": ${dns1123Label}`,
        `spec.resourceClaims[2].resourceClaimName: Invalid value: "Bad_Name": ${subdomain}`,
        'spec.resourceClaims[3].name: Required value',
      ],
    ],
    [
      'a negative or non-container overhead',
      pod({ overhead: { cpu: '-1', storage: '1Gi' } }),
      [
        'spec.overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
        'spec.overhead.limits[storage]: Invalid value: "storage": must be a standard resource for containers',
      ],
    ],
    [
      'resize policies that repeat, are unknown, or restart a container of a never-restarting pod',
      pod(
        { restartPolicy: 'Never' },
        {
          resizePolicy: [
            { resourceName: 'cpu', restartPolicy: 'NotRequired' },
            { resourceName: 'cpu', restartPolicy: 'Sometimes' },
            { resourceName: 'gpu', restartPolicy: 'RestartContainer' },
          ],
        },
      ),
      [
        'spec.containers[0].resizePolicy[1]: Duplicate value: "cpu"',
        'spec.containers[0].resizePolicy: Unsupported value: "Sometimes": supported values: "NotRequired", "RestartContainer"',
        "spec.containers[0].resizePolicy: Invalid value: \"Sometimes\": must be 'NotRequired' when `restartPolicy` is 'Never'",
        'spec.containers[0].resizePolicy: Unsupported value: "gpu": supported values: "cpu", "memory"',
        "spec.containers[0].resizePolicy: Invalid value: \"RestartContainer\": must be 'NotRequired' when `restartPolicy` is 'Never'",
      ],
    ],
  ];
  for (const [name, p, expected] of cases) {
    it(`rejects ${name}`, () => assert.deepEqual(errors(p), expected));
  }
});
