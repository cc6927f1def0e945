/**
 * The identity of a node on the wire: user `system:node:<name>` in group `system:nodes`. The Node
 * authorizer and NodeRestriction recognise it, the certificate approver checks node requests against
 * it, and the node agent asks for certificates in its name.
 */
export const nodeUserPrefix = 'system:node:';
export const nodesGroup = 'system:nodes';

/** The subject of a node's client and serving certificates: CN `system:node:<name>`, O `system:nodes`. */
export function nodeCertificateSubject(nodeName: string): { commonName: string; organizations: string[] } {
  return { commonName: `${nodeUserPrefix}${nodeName}`, organizations: [nodesGroup] };
}
