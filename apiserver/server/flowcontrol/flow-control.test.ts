import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../logging.ts';
import { MetricsRegistry } from '../metrics.ts';
import { parseRequestInfo } from '../requestinfo.ts';
import type { UserInfo } from '../../registry/definition.ts';
import { FlowControl, nominalConcurrencyLimits, queueWaitLimitMs, type Admission, type PendingAdmission } from './flow-control.ts';
import { bootstrapPriorityLevels } from './configuration.ts';

const bob: UserInfo = { username: 'bob', groups: ['system:authenticated'] };
const admin: UserInfo = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };
const node: UserInfo = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const post = parseRequestInfo('POST', '/api/v1/namespaces/default/configmaps', new URLSearchParams());
const leaseUpdate = parseRequestInfo('PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1', new URLSearchParams());

function flowControl(serverConcurrencyLimit: number): { control: FlowControl; registry: MetricsRegistry } {
  const registry = new MetricsRegistry({ logger: createLogger('silent', 'test') });
  return { control: new FlowControl({ serverConcurrencyLimit, registry }), registry };
}

function admitted(result: Admission | PendingAdmission): () => void {
  assert.ok('admitted' in result && result.admitted, 'expected a seat at once');
  return result.release;
}

function pending(result: Admission | PendingAdmission): PendingAdmission {
  assert.ok('cancel' in result, 'expected the request to wait');
  return result;
}

describe('FlowControl', () => {
  it("divides the server's limit among the limited levels by their shares, rounding up", () => {
    const limits = nominalConcurrencyLimits(600, bootstrapPriorityLevels);
    assert.deepEqual(Object.fromEntries(limits), {
      'catch-all': 13,
      system: 74,
      'node-high': 98,
      'leader-election': 25,
      'workload-high': 98,
      'workload-low': 245,
      'global-default': 49,
    });
    assert.equal(queueWaitLimitMs(60_000), 15_000);
    assert.equal(queueWaitLimitMs(3_600_000), 60_000);
  });

  it('queues beyond the level limit, hands the seat on when released, and leaves other levels and exempt users alone', async () => {
    const { control, registry } = flowControl(2);
    const global = control.classify(bob, post)!;
    const release = admitted(control.admit(global, 10_000));
    const waiting = pending(control.admit(global, 10_000));
    admitted(control.admit(control.classify(admin, post)!, 10_000));
    admitted(control.admit(control.classify(node, leaseUpdate)!, 10_000));
    const text = await registry.text();
    assert.match(text, /apiserver_flowcontrol_current_inqueue_requests\{flow_schema="global-default",priority_level="global-default"\} 1/);
    assert.match(text, /apiserver_flowcontrol_nominal_limit_seats\{priority_level="node-high"\} 1/);
    release();
    release();
    const outcome = await waiting.admission;
    assert.equal(outcome.admitted, true);
    assert.match(await registry.text(), /apiserver_flowcontrol_dispatched_requests_total\{flow_schema="global-default",priority_level="global-default"\} 2/);
  });

  it('turns a request away when its wait runs out, or drops it when its client leaves', async () => {
    const { control, registry } = flowControl(2);
    const global = control.classify(bob, post)!;
    admitted(control.admit(global, 10_000));
    const timedOut = await pending(control.admit(global, 20)).admission;
    assert.deepEqual(timedOut, { admitted: false, reason: 'time-out', retryAfterSeconds: 1 });
    const leaving = pending(control.admit(global, 10_000));
    leaving.cancel();
    assert.equal((await leaving.admission).admitted, false);
    await sleep(1);
    const text = await registry.text();
    assert.match(text, /apiserver_flowcontrol_rejected_requests_total\{flow_schema="global-default",priority_level="global-default",reason="time-out"\} 1/);
    assert.match(text, /apiserver_flowcontrol_rejected_requests_total\{flow_schema="global-default",priority_level="global-default",reason="cancelled"\} 1/);
    assert.match(text, /apiserver_flowcontrol_current_inqueue_requests\{flow_schema="global-default",priority_level="global-default"\} 0/);
  });

  it('answers with stable UIDs of the schema and level, the same in every instance', () => {
    const a = flowControl(10).control.classify(node, leaseUpdate)!;
    const b = flowControl(10).control.classify(node, leaseUpdate)!;
    assert.match(a.flowSchemaUid, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual([a.flowSchemaUid, a.priorityLevelUid], [b.flowSchemaUid, b.priorityLevelUid]);
    assert.notEqual(a.flowSchemaUid, a.priorityLevelUid);
  });
});
