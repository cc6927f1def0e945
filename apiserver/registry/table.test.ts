import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ageColumn, nameColumn, timeSince, timestampMillis } from './table.ts';

const now = new Date('2024-05-01T12:00:00Z');

test('Name and Age describe themselves with ObjectMeta docs, as upstream', () => {
  assert.match(nameColumn.description, /^Name must be unique within a namespace\./);
  assert.match(ageColumn.description, /^CreationTimestamp is a timestamp representing the server time/);
  assert.equal(ageColumn.type, 'string');
});

test("timeSince is upstream's translateTimestampSince: <unknown> for Go's zero time", () => {
  assert.equal(timeSince(undefined, now), '<unknown>');
  assert.equal(timeSince(null, now), '<unknown>');
  assert.equal(timeSince('', now), '<unknown>');
  assert.equal(timeSince('0001-01-01T00:00:00Z', now), '<unknown>');
  assert.equal(timeSince('2024-05-01T11:59:55Z', now), '5s');
  assert.equal(timeSince('2024-05-01T11:59:55.123456Z', now), '4s');
  assert.equal(timeSince('2024-04-29T07:00:00Z', now), '2d5h');
  // A creation time ahead of the request's clock by 2s or more is invalid.
  assert.equal(timeSince('2024-05-01T12:00:02Z', now), '<invalid>');
  assert.equal(timeSince('2024-05-01T12:00:01Z', now), '0s');
  assert.equal(timestampMillis('2024-05-01T12:00:00Z'), now.getTime());
  assert.equal(timestampMillis('0001-01-01T00:00:00Z'), null);
});
