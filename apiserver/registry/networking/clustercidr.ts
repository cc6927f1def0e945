/**
 * ClusterCIDR (networking.k8s.io/v1alpha1): one pool of pod CIDRs for the multi-CIDR range
 * allocator. Served by upstream until 1.28 (off by default), so its rules are 1.28's: the name is
 * a DNS label, the whole spec is immutable, and the node selector follows 1.28's node selector
 * rules (label values of match expressions are not checked).
 */
import { FieldPath, invalid, required, type FieldError } from '../../../shared/api/field.ts';
import type { NodeSelector, NodeSelectorRequirement } from '../../../shared/api/node-selector.ts';
import { describe, int32, kindSchema, named, nodeSelector, object, pb, string, type Schema } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { nameIsDNSLabel } from '../../../shared/validation/names.ts';
import { parseCIDRSloppy } from '../../../shared/validation/cidr.ts';
import { semanticEqual, validateImmutableField } from '../../../shared/validation/immutable.ts';
import { validateNodeSelector } from '../../../shared/validation/node-selector.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { age, ageColumn, nameColumn } from '../table.ts';
import { append } from '../../../shared/api/append.ts';

export interface ClusterCIDRSpec {
  nodeSelector?: NodeSelector;
  perNodeHostBits?: number;
  ipv4?: string;
  ipv6?: string;
}

export interface ClusterCIDR extends KubeObject {
  spec?: ClusterCIDRSpec;
}

const minPerNodeHostBits = 4;
const specPath = FieldPath.root('spec');

function validateCIDRConfig(cidr: string, perNodeHostBits: number, family: 'ipv4' | 'ipv6'): FieldError[] {
  const path = specPath.child(family);
  const parsed = parseCIDRSloppy(cidr);
  if (!parsed) return [invalid(path, cidr, `must be a valid CIDR: ${cidr}`)];
  const errs: FieldError[] = [];
  if (family === 'ipv4' && !parsed.isIPv4) errs.push(invalid(path, cidr, 'must be a valid IPv4 CIDR'));
  if (family === 'ipv6' && parsed.isIPv4) errs.push(invalid(path, cidr, 'must be a valid IPv6 CIDR'));
  // The prefix counts against the field's family, even for a mapped address with a 128-bit mask.
  const maxPerNodeHostBits = (family === 'ipv4' ? 32 : 128) - parsed.prefixLength;
  const bitsPath = specPath.child('perNodeHostBits');
  if (perNodeHostBits < minPerNodeHostBits) {
    errs.push(invalid(bitsPath, perNodeHostBits, `must be greater than or equal to ${minPerNodeHostBits}`));
  }
  if (perNodeHostBits > maxPerNodeHostBits) {
    errs.push(invalid(bitsPath, perNodeHostBits, `must be less than or equal to ${maxPerNodeHostBits}`));
  }
  return errs;
}

function validateSpec(spec: ClusterCIDRSpec): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.nodeSelector) append(errs, validateNodeSelector(spec.nodeSelector, specPath.child('nodeSelector')));
  const ipv4 = spec.ipv4 ?? '';
  const ipv6 = spec.ipv6 ?? '';
  if (ipv4 === '' && ipv6 === '') {
    errs.push(required(specPath, 'one or both of `ipv4` and `ipv6` must be specified'));
    return errs;
  }
  const perNodeHostBits = spec.perNodeHostBits ?? 0;
  if (ipv4 !== '') append(errs, validateCIDRConfig(ipv4, perNodeHostBits, 'ipv4'));
  if (ipv6 !== '') append(errs, validateCIDRConfig(ipv6, perNodeHostBits, 'ipv6'));
  return errs;
}

/** Requirements as Go's `%v` prints them: `[{key In [a b]} {other Exists []}]`. */
function goRequirements(requirements: readonly NodeSelectorRequirement[]): string {
  return `[${requirements.map((r) => `{${r.key ?? ''} ${r.operator ?? ''} [${(r.values ?? []).join(' ')}]}`).join(' ')}]`;
}

/** The NodeSelector cell (upstream 1.28's printer): each term's expressions and fields, `<none>` without a selector. */
function nodeSelectorText(selector: NodeSelector | null | undefined): string {
  if (!selector) return '<none>';
  const terms: string[] = [];
  for (const term of selector.nodeSelectorTerms ?? []) {
    if (term.matchExpressions?.length) terms.push(`MatchExpressions: ${goRequirements(term.matchExpressions)}`);
    if (term.matchFields?.length) terms.push(`MatchFields: ${goRequirements(term.matchFields)}`);
  }
  return terms.join(',');
}

const clusterCIDRSpec = (): Schema =>
  named(
    'io.k8s.api.networking.v1alpha1.ClusterCIDRSpec',
    'The pod CIDRs of one pool, how they are split per node, and which nodes draw from it. Cannot change.',
    object(
      {
        nodeSelector: pb(1, describe(nodeSelector(), 'Nodes that may take pod CIDRs from this pool; absent means every node.'), 'optional'),
        perNodeHostBits: pb(
          2,
          int32(
            "Host bits of each node's share: every node gets a block of 2^perNodeHostBits addresses, such as 8 for a /24 out of an IPv4 pool. At least 4. Required.",
          ),
          'keepZero',
        ),
        ipv4: pb(3, string('IPv4 pool in CIDR notation, such as 10.0.0.0/8; at least one of ipv4 and ipv6 is required.'), 'keepZero'),
        ipv6: pb(4, string('IPv6 pool in CIDR notation, such as fd00:1::/112; at least one of ipv4 and ipv6 is required.'), 'keepZero'),
      },
      ['perNodeHostBits'],
    ),
  );

export const clusterCIDRDefinition = defineResource<ClusterCIDR>({
  group: 'networking.k8s.io',
  version: 'v1alpha1',
  kind: 'ClusterCIDR',
  plural: 'clustercidrs',
  singular: 'clustercidr',
  namespaced: false,
  verbs: allVerbs,
  enabledByDefault: false,
  nameRule: nameIsDNSLabel,
  schema: describe(
    kindSchema({ spec: pb(2, describe(clusterCIDRSpec(), 'The pool and how it is shared out.')) }),
    'A pool of pod CIDRs that the multi-CIDR range allocator hands out to matching nodes, one block per node and IP family.',
  ),
  strategy: {
    allowCreateOnUpdate: false,
    validate(obj) {
      return validateSpec(obj.spec ?? {});
    },
    validateUpdate(obj, old) {
      const spec = obj.spec ?? {};
      const oldSpec = old.spec ?? {};
      return [
        ...validateSpec(spec),
        ...validateImmutableField(spec.nodeSelector, oldSpec.nodeSelector, specPath.child('nodeSelector'), semanticEqual),
        ...validateImmutableField(spec.perNodeHostBits ?? 0, oldSpec.perNodeHostBits ?? 0, specPath.child('perNodeHostBits')),
        ...validateImmutableField(spec.ipv4 ?? '', oldSpec.ipv4 ?? '', specPath.child('ipv4')),
        ...validateImmutableField(spec.ipv6 ?? '', oldSpec.ipv6 ?? '', specPath.child('ipv6')),
      ];
    },
  },
  // Upstream printed ClusterCIDRs until 1.28, with networking.k8s.io/v1alpha1's docs.
  table: {
    columns: [
      nameColumn,
      {
        name: 'PerNodeHostBits',
        type: 'string',
        description:
          'perNodeHostBits defines the number of host bits to be configured per node. A subnet mask determines how much of the address is used for network bits and host bits. For example an IPv4 address of 192.168.0.0/24, splits the address into 24 bits for the network portion and 8 bits for the host portion. To allocate 256 IPs, set this field to 8 (a /24 mask for IPv4 or a /120 for IPv6). Minimum value is 4 (16 IPs). This field is immutable.',
      },
      {
        name: 'IPv4',
        type: 'string',
        description:
          'ipv4 defines an IPv4 IP block in CIDR notation(e.g. "10.0.0.0/8"). At least one of ipv4 and ipv6 must be specified. This field is immutable.',
      },
      {
        name: 'IPv6',
        type: 'string',
        description:
          'ipv6 defines an IPv6 IP block in CIDR notation(e.g. "2001:db8::/64"). At least one of ipv4 and ipv6 must be specified. This field is immutable.',
      },
      ageColumn,
      {
        name: 'NodeSelector',
        type: 'string',
        priority: 1,
        description: 'nodeSelector defines which nodes the config is applicable to. An empty or nil nodeSelector selects all nodes. This field is immutable.',
      },
    ],
    cells: (cidr, now) => [
      cidr.metadata.name,
      String(cidr.spec?.perNodeHostBits ?? 0),
      cidr.spec?.ipv4 || '<none>',
      cidr.spec?.ipv6 || '<none>',
      age(cidr, now),
      nodeSelectorText(cidr.spec?.nodeSelector),
    ],
  },
});
