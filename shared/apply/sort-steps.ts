/**
 * Sorting in steps (steps.ts): one Array.prototype.sort of 150,000 path elements holds the event
 * loop for tens of milliseconds, and a sort cannot be cut short. This one sorts runs of a few
 * hundred items with Array.prototype.sort, then merges runs pairwise, pass by pass, counting every
 * item it moves on the walk's WorkCounter, so that it can yield anywhere. Both halves are stable,
 * so the result is Array.prototype.sort's (which is stable too) for any comparator.
 */
import type { Steps, WorkCounter } from './steps.ts';

/** Items sorted at once: well under a millisecond with any comparator used here. */
const runLength = 256;

/** Sorts `items` in place by `compare`, yielding as `work` says; returns `items`. */
export function* sortSteps<T>(items: T[], compare: (a: T, b: T) => number, work: WorkCounter): Steps<T[]> {
  const n = items.length;
  if (n <= runLength) return items.sort(compare);
  for (let start = 0; start < n; start += runLength) {
    const run = items.slice(start, start + runLength).sort(compare);
    for (let i = 0; i < run.length; i++) items[start + i] = run[i] as T;
    if (work.tick(run.length)) yield;
  }
  let from = items;
  let to: T[] = new Array<T>(n);
  for (let width = runLength; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      // The left run first on ties: stable.
      while (i < mid && j < hi) {
        to[k++] = compare(from[j] as T, from[i] as T) < 0 ? (from[j++] as T) : (from[i++] as T);
        if (work.tick()) yield;
      }
      while (i < mid) to[k++] = from[i++] as T;
      while (j < hi) to[k++] = from[j++] as T;
    }
    [from, to] = [to, from];
  }
  if (from !== items) for (let i = 0; i < n; i++) items[i] = from[i] as T;
  return items;
}
