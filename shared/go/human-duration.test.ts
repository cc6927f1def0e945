import { test } from 'node:test';
import assert from 'node:assert/strict';
import { humanDuration, shortHumanDuration } from './human-duration.ts';

const ms = 1;
const s = 1000 * ms;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;
const y = 365 * d;

test('humanDuration keeps 2-3 significant figures, switching units at upstream boundaries', () => {
  const cases: [number, string][] = [
    [-2 * s, '<invalid>'],
    [-2 * s + 1, '0s'],
    [0, '0s'],
    [s - ms, '0s'],
    [s, '1s'],
    [70 * s, '70s'],
    [2 * m - ms, '119s'],
    [2 * m, '2m'],
    [2 * m + s, '2m1s'],
    [190 * s, '3m10s'],
    [3 * m + 20 * s, '3m20s'],
    [10 * m - ms, '9m59s'],
    [10 * m, '10m'],
    [10 * m + s, '10m'],
    [70 * m, '70m'],
    [3 * h - ms, '179m'],
    [3 * h, '3h'],
    [3 * h + m, '3h1m'],
    [8 * h - ms, '7h59m'],
    [8 * h, '8h'],
    [8 * h + 59 * m, '8h'],
    [47 * h, '47h'],
    [2 * d - ms, '47h'],
    [2 * d, '2d'],
    [49 * h, '2d1h'],
    [2 * d + 5 * h, '2d5h'],
    [8 * d - ms, '7d23h'],
    [8 * d, '8d'],
    [8 * d + 23 * h, '8d'],
    [367 * d, '367d'],
    [2 * y - ms, '729d'],
    [2 * y, '2y'],
    [2 * y + 24 * h - ms, '2y'],
    [2 * y + 24 * h, '2y1d'],
    [2 * y + 25 * h, '2y1d'],
    [5 * y, '5y'],
    [8 * y - ms, '7y364d'],
    [8 * y, '8y'],
    [8 * y + 364 * d, '8y'],
    [9 * y, '9y'],
  ];
  for (const [duration, want] of cases) assert.equal(humanDuration(duration), want, `humanDuration(${duration})`);
});

test('shortHumanDuration shows one unit', () => {
  const cases: [number, string][] = [
    [-2 * s, '<invalid>'],
    [-2 * s + 1, '0s'],
    [0, '0s'],
    [s - ms, '0s'],
    [s, '1s'],
    [2 * s - ms, '1s'],
    [m - ms, '59s'],
    [m, '1m'],
    [2 * m - ms, '1m'],
    [h - ms, '59m'],
    [h, '1h'],
    [2 * h - ms, '1h'],
    [d - ms, '23h'],
    [d, '1d'],
    [2 * d - ms, '1d'],
    [y - ms, '364d'],
    [y, '1y'],
    [2 * y - ms, '1y'],
    [2 * y, '2y'],
  ];
  for (const [duration, want] of cases) assert.equal(shortHumanDuration(duration), want, `shortHumanDuration(${duration})`);
});
