import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  GRPCCancelledError,
  GRPCDeadlineExceededError,
  GRPCInternalError,
  GRPCInvalidArgumentError,
  GRPCResourceExhastedError,
  GRPCUnavailableError,
  isRecoverableError,
} from 'etcd3';
import { classifyEtcdError, EtcdRequestRejectedError, isEtcdUnreachable, isUndelivered, requestFaultOf } from './errors.ts';

// The errors as the etcd3 client casts them: `<class>: <code> <NAME>: <description>`.
const tooLarge = new GRPCInvalidArgumentError('GRPCInvalidArgumentError: 3 INVALID_ARGUMENT: etcdserver: request is too large');
const overReceiveLimit = new GRPCResourceExhastedError('8 RESOURCE_EXHAUSTED: grpc: received message larger than max (3867326 vs. 2097152)');
const overSendLimit = new GRPCResourceExhastedError('8 RESOURCE_EXHAUSTED: trying to send message larger than max (20971520 vs. 16777216)');
const tooManyOps = new GRPCInvalidArgumentError('3 INVALID_ARGUMENT: etcdserver: too many operations in txn request');
const noSpace = new GRPCResourceExhastedError('8 RESOURCE_EXHAUSTED: etcdserver: mvcc: database space exceeded');
const unavailable = new GRPCUnavailableError('14 UNAVAILABLE: No connection established');
const deadline = new GRPCDeadlineExceededError('4 DEADLINE_EXCEEDED: Deadline exceeded');

test('writes etcd refuses for their size are TooLarge, with etcd’s words and nothing of the client’s prefix', () => {
  for (const [err, text] of [
    [tooLarge, 'etcdserver: request is too large'],
    [overReceiveLimit, 'grpc: received message larger than max (3867326 vs. 2097152)'],
    [overSendLimit, 'trying to send message larger than max (20971520 vs. 16777216)'],
  ] as const) {
    const classified = classifyEtcdError(err, '/registry/x');
    assert.equal(classified.code, 'TooLarge', err.message);
    assert.equal(classified.message, text);
  }
  assert.equal(classifyEtcdError(tooManyOps, 'k').code, 'InvalidRequest');
});

test('a request fault becomes an error etcd3 neither retries nor counts nor resets connections for', () => {
  // etcd3 marks ResourceExhausted recoverable: retried three times, counted by the breaker, and
  // every connection to the host reset.
  assert.ok(isRecoverableError(overReceiveLimit));
  const fault = requestFaultOf(overReceiveLimit);
  assert.ok(fault instanceof EtcdRequestRejectedError);
  assert.equal(isRecoverableError(fault), false);
  assert.equal(fault.code, 'TooLarge');
  // Classifying the replacement gives the same answer as classifying the original.
  assert.equal(classifyEtcdError(fault, 'k').code, 'TooLarge');
  assert.equal(classifyEtcdError(fault, 'k').message, classifyEtcdError(overReceiveLimit, 'k').message);
  for (const err of [noSpace, unavailable, deadline, new GRPCInternalError('13 INTERNAL: x'), new Error('other')])
    assert.equal(requestFaultOf(err), undefined, err.message);
});

test('the breaker counts etcd being unreachable and nothing else', () => {
  assert.ok(isEtcdUnreachable(unavailable));
  assert.ok(isEtcdUnreachable(deadline));
  for (const err of [
    tooLarge,
    overReceiveLimit,
    overSendLimit,
    tooManyOps,
    noSpace,
    new GRPCCancelledError('1 CANCELLED: Cancelled on client'),
    new Error('x'),
  ]) {
    assert.equal(isEtcdUnreachable(err), false, err.message);
  }
  assert.equal(classifyEtcdError(unavailable, 'k').code, 'Unavailable');
  assert.equal(classifyEtcdError(deadline, 'k').code, 'Timeout');
});

test('only a call that found no connection counts as never sent, so that a write may be repeated', () => {
  assert.ok(isUndelivered(unavailable));
  assert.ok(isUndelivered(new GRPCUnavailableError('14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 127.0.0.1:2379')));
  for (const err of [
    new GRPCUnavailableError('14 UNAVAILABLE: read ECONNRESET'),
    new GRPCUnavailableError('14 UNAVAILABLE: etcdserver: request timed out, possibly due to previous leader failure'),
    new GRPCUnavailableError('14 UNAVAILABLE: etcdserver: leader changed'),
    deadline,
    tooLarge,
    new Error('No connection established'),
  ])
    assert.equal(isUndelivered(err), false, err.message);
});
