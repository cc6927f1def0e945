import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalQuantity, quantityString, tryCanonicalQuantity } from './quantity.ts';

/** Input → what kube-apiserver serves back (ParseQuantity, then String()). */
function assertCanonical(cases: readonly (readonly [string, string])[]): void {
  for (const [input, expected] of cases) assert.equal(canonicalQuantity(input), expected, input);
}

/** The same cases with a minus sign: the same magnitude, negated (zero stays "0"). */
function negated(cases: readonly (readonly [string, string])[]): [string, string][] {
  return cases.map(([input, expected]) => [`-${input}`, expected === '0' ? '0' : `-${expected}`]);
}

// upstream TestQuantityString: canonical text parses back to itself, alternates to it.
const stringTable = [
  ['1Gi', '1Gi'],
  ['1024Mi', '1Gi'],
  ['300Mi', '300Mi'],
  ['307200Ki', '300Mi'],
  ['6Ki', '6Ki'],
  ['1001Gi', '1001Gi'],
  ['1025024Mi', '1001Gi'],
  ['1Ti', '1Ti'],
  ['1024Gi', '1Ti'],
  ['5', '5'],
  ['5000m', '5'],
  ['500m', '500m'],
  ['0.5', '500m'],
  ['1G', '1G'],
  ['1000M', '1G'],
  ['0.001T', '1G'],
  ['1m', '1m'],
  ['1000u', '1m'],
  ['80m', '80m'],
  ['1080m', '1080m'],
  ['1.08', '1080m'],
  ['1080000000n', '1080m'],
  ['300M', '300M'],
  ['1T', '1T'],
  ['1234567M', '1234567M'],
  ['1234567m', '1234567m'],
  ['3k', '3k'],
  ['1025', '1025'],
  ['1e9', '1e9'],
  ['.001e12', '1e9'],
  ['1e-3', '1e-3'],
  ['0.001e0', '1e-3'],
  ['1e-9', '1e-9'],
  ['1000e-12', '1e-9'],
  ['80e-3', '80e-3'],
  ['300e6', '300e6'],
  ['1e12', '1e12'],
  ['1e3', '1e3'],
  ['3e3', '3e3'],
  ['1n', '1n'],
  ['80n', '80n'],
  ['1080n', '1080n'],
  ['1u', '1u'],
  ['80u', '80u'],
  ['1080u', '1080u'],
] as const;

// upstream TestQuantityParseEmit.
const parseEmitTable = [
  ['1Ki', '1Ki'],
  ['1Mi', '1Mi'],
  ['1Gi', '1Gi'],
  ['1024Mi', '1Gi'],
  ['1000M', '1G'],
  ['.001Ki', '1024m'],
  ['.000001Ki', '1024u'],
  ['.000000001Ki', '1024n'],
  ['.000000000001Ki', '2n'],
] as const;

// upstream TestQuantityParse: each input's expected value and format, printed as String() prints them.
const parseTable = [
  ['0n', '0'],
  ['0Ki', '0'],
  ['0Ti', '0'],
  ['8Ki', '8Ki'],
  ['7Mi', '7Mi'],
  ['3Ei', '3Ei'],
  ['100Ti', '100Ti'],
  ['50k', '50k'],
  ['40T', '40T'],
  ['300T', '300T'],
  ['2P', '2P'],
  ['1E', '1E'],
  ['12E', '12E'],
  // Already canonical by upstream's cheap check: the text is kept, its capital E included.
  ['1E-3', '1E-3'],
  ['1E6', '1E6'],
  ['1E18', '1E18'],
  ['1e14', '100e12'],
  ['1e13', '10e12'],
  // A whole number of units at a scale that is a multiple of 3 also passes that check.
  ['100.035k', '100.035k'],
  ['0.0005k', '500m'],
  ['0.00050k', '500m'],
  ['0.00500', '5m'],
  ['0.05000', '50m'],
  ['0.5e0', '500e-3'],
  ['0.5e-1', '50e-3'],
  ['0.5e-2', '5e-3'],
  ['10.035M', '10.035M'],
  ['1.2e3', '1200'],
  ['1.3E+6', '1300e3'],
  ['1.40e9', '1400e6'],
  ['1.53E12', '1530e9'],
  ['1.6e15', '1600e12'],
  ['1.7E18', '1700e15'],
  ['9.01', '9010m'],
  ['8.1k', '8100'],
  ['7.123456M', '7.123456M'],
  ['6.987654321G', '6.987654321G'],
  ['5.444T', '5.444T'],
  ['40.1T', '40100G'],
  ['300.2T', '300200G'],
  ['2.5P', '2500T'],
  ['1.01E', '1010P'],
  // Rounded up (away from zero) to nano precision.
  ['3.001n', '4n'],
  ['1.1E-9', '2e-9'],
  ['0.0000000001', '1n'],
  ['0.0000000005', '1n'],
  ['0.00000000050', '1n'],
  ['0.5e-9', '1e-9'],
  ['0.9n', '1n'],
  ['0.00000012345', '124n'],
  ['0.00000012354', '124n'],
  // BinarySI is capped at the largest int64.
  ['9Ei', '9223372036854775807'],
  ['9223372036854775807Ki', '9223372036854775807'],
  // Fractional binary values print as DecimalSI unless whole.
  ['100.035Ki', '102435840m'],
  ['0.5Mi', '512Ki'],
  ['0.05Gi', '53687091200m'],
  ['0.025Ti', '27487790694400m'],
  ['0.000000000001Ki', '2n'],
  ['.001', '1m'],
  ['.0001k', '100m'],
  ['1.', '1.'],
  ['1.G', '1.G'],
  ['1.0', '1'],
] as const;

describe('canonicalQuantity', () => {
  it('prints what upstream String() prints (TestQuantityString, TestQuantityParseEmit, TestQuantityParse)', () => {
    assertCanonical(stringTable);
    assertCanonical(parseEmitTable);
    assertCanonical(parseTable);
    assertCanonical([
      ['0', '0'],
      ['00', '0'],
      ['0m', '0'],
      ['1', '1'],
      ['9', '9'],
    ]);
  });

  it('negates every case', () => {
    assertCanonical(negated(stringTable));
    assertCanonical(negated(parseEmitTable));
    assertCanonical(negated(parseTable));
  });

  it('canonicalizes the examples of the Quantity documentation and common wire values', () => {
    assertCanonical([
      ['1.5', '1500m'],
      ['1.5Gi', '1536Mi'],
      ['4000m', '4'],
      ['1024Mi', '1Gi'],
      ['1000', '1k'],
      ['110', '110'],
      ['100M', '100M'],
      ['12e6', '12e6'],
      ['1000e0', '1e3'],
      ['1536', '1536'],
      ['1.5Ki', '1536'],
      ['1023Ki', '1023Ki'],
      ['1.0001Ki', '1024102400u'],
    ]);
  });

  it('keeps exact values beyond int64 and exponents beyond the suffix tables', () => {
    assertCanonical([
      ['99999999999999999999', '99999999999999999999'],
      ['123456789012345678901234567890', '123456789012345678901234567890'],
      ['100000000000000000000', '100E'],
      ['-100000000000000000000', '-100E'],
      ['123456789012345678901234567890m', '123456789012345678901234567890m'],
      ['1.000000000000000000001', '1000000001n'],
      ['4Ei', '4Ei'],
      ['7Ei', '7Ei'],
      ['8Ei', '9223372036854775807'],
      ['-8Ei', '-9223372036854775807'],
      ['1024Ei', '9223372036854775807'],
      ['8191Pi', '8191Pi'],
      ['1e100', '10e99'],
      ['1e-100', '1e-9'],
      ['-1e-100', '-1e-9'],
      ['5e2147483647', '50e2147483646'],
      // DecimalSI has no suffix past E (10^18): upstream prints the bare mantissa.
      ['1000E', '1'],
    ]);
  });

  it('keeps text that passes upstream cheap canonical check verbatim, a sign or leading zeros included', () => {
    assertCanonical([
      ['+1', '+1'],
      ['+100M', '+100M'],
      ['01', '01'],
      ['1.500', '1.500'],
      ['+9Ki', '+9Ki'],
      ['+8Ki', '8Ki'],
      ['+1000', '1k'],
      ['+0', '0'],
      ['-0', '0'],
      ['-0.000', '0'],
    ]);
  });

  it('accepts what upstream scanner accepts however odd, and nothing else', () => {
    assertCanonical([
      ['.', '0'],
      ['+', '0'],
      ['Ki', '0'],
      ['1e+5', '100e3'],
    ]);
    for (const bad of [
      '',
      '1.1.M',
      '1+1.0M',
      '0.1mi',
      '0.1am',
      'aoeu',
      '.5i',
      '1i',
      '-3.01i',
      '-3.01e-',
      ' 1',
      '1 ',
      '1e',
      '1K',
      '1Ee5',
      '1e99999999999999999999',
      'Ei',
    ]) {
      assert.equal(tryCanonicalQuantity(bad), null, bad);
      assert.equal(canonicalQuantity(bad), bad, bad);
    }
  });
});

describe('quantityString', () => {
  it('reads a JSON number as its decimal text and trims whitespace, as UnmarshalJSON does', () => {
    assert.equal(quantityString(1000), '1k');
    assert.equal(quantityString(0.5), '500m');
    assert.equal(quantityString(' 1024Mi '), '1Gi');
    assert.equal(quantityString(' not a quantity '), 'not a quantity');
    assert.equal(quantityString(''), '');
  });
});
