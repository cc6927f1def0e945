/**
 * Shuffle sharding: a flow's hash deals it a hand of distinct queues out of a deck, so that two
 * flows rarely share their whole hand and a heavy flow crowds out few others (upstream's Dealer).
 * The hash is read as a mixed-radix number: digit i picks among the deckSize - i cards not yet dealt.
 */
import { createHash } from 'node:crypto';

/** A 48-bit hash of a flow: enough for every hand of 6 out of 128 (128·127·…·123 < 2^48). */
export function flowHash(flowSchemaName: string, flowDistinguisher: string): number {
  return createHash('sha256').update(flowSchemaName).update('\0').update(flowDistinguisher).digest().readUIntBE(0, 6);
}

/** The queue indices of the hand dealt by `hash`: `handSize` distinct numbers below `deckSize`. */
export function dealHand(hash: number, deckSize: number, handSize: number): number[] {
  const hand: number[] = [];
  let rest = hash;
  for (let i = 0; i < handSize && i < deckSize; i++) {
    const remaining = deckSize - i;
    let card = rest % remaining;
    rest = Math.floor(rest / remaining);
    // The card-th of the cards not dealt yet: step over the dealt ones at or below it, in order.
    for (const dealt of [...hand].sort((a, b) => a - b)) if (dealt <= card) card++;
    hand.push(card);
  }
  return hand;
}
