/**
 * core/v1 NodeSelector as it appears in objects (ClusterCIDR, a persistent volume's node affinity):
 * terms any one of which a node must meet, each a list of conditions on labels and fields. Fields
 * Go decodes to "" or nil may be missing. The schema is shared/api/schema.ts's nodeSelector().
 */

export interface NodeSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface NodeSelector {
  nodeSelectorTerms?: NodeSelectorTerm[];
}
