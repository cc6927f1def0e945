import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dealHand, flowHash } from './shuffle-shard.ts';

describe('dealHand', () => {
  it('deals every ordered hand of a small deck exactly once over the range of hashes', () => {
    const seen = new Set<string>();
    for (let hash = 0; hash < 5 * 4 * 3; hash++) {
      const hand = dealHand(hash, 5, 3);
      assert.equal(new Set(hand).size, 3, `hand ${hand.join(',')} repeats a card`);
      assert.ok(hand.every((card) => card >= 0 && card < 5));
      seen.add(hand.join(','));
    }
    assert.equal(seen.size, 60);
  });

  it('deals distinct cards of the deck for large hashes, the same hand for the same hash', () => {
    for (const name of ['system:node:a', 'system:node:b', 'bob', '']) {
      const hash = flowHash('system-node-high', name);
      assert.ok(Number.isSafeInteger(hash) && hash >= 0);
      const hand = dealHand(hash, 64, 6);
      assert.equal(new Set(hand).size, 6);
      assert.ok(hand.every((card) => Number.isInteger(card) && card >= 0 && card < 64));
      assert.deepEqual(dealHand(hash, 64, 6), hand);
    }
  });

  it('gives different flows different hands', () => {
    const hands = new Set(Array.from({ length: 200 }, (_, i) => dealHand(flowHash('global-default', `user-${i}`), 128, 6).join(',')));
    assert.ok(hands.size > 195, `${hands.size} distinct hands of 200 flows`);
  });
});
