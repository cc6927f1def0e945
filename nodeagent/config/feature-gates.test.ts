import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FeatureGates, parseFeatureGatesFlag } from './feature-gates.ts';

describe('feature gates', () => {
  it('parses --feature-gates as cliflag.MapStringBool: trimmed pairs, ParseBool values', () => {
    assert.deepEqual(parseFeatureGatesFlag('NodeSwap=false, MemoryQoS = T,,'), { NodeSwap: false, MemoryQoS: true });
    assert.throws(() => parseFeatureGatesFlag('NodeSwap'), { message: 'malformed pair, expect string=bool' });
    assert.throws(() => parseFeatureGatesFlag('NodeSwap=maybe'), {
      message: 'invalid value of NodeSwap: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax',
    });
  });

  it("has upstream's defaults, overridden by the gates set", () => {
    const defaults = FeatureGates.from({}).gates;
    assert.equal(defaults.enabled('RotateKubeletServerCertificate'), true);
    assert.equal(defaults.enabled('MemoryQoS'), false);
    const set = FeatureGates.from({ MemoryQoS: true, RotateKubeletServerCertificate: false }).gates;
    assert.equal(set.enabled('MemoryQoS'), true);
    assert.equal(set.enabled('RotateKubeletServerCertificate'), false);
  });

  it("refuses an unknown gate and a locked gate set against its default, in upstream's words", () => {
    assert.throws(() => FeatureGates.from({ Bogus: true }), { message: 'unrecognized feature gate: Bogus' });
    assert.throws(() => FeatureGates.from({ CPUManager: false }), { message: 'cannot set feature gate CPUManager to false, feature is locked to true' });
  });

  it('warns when a GA gate is set', () => {
    assert.deepEqual(FeatureGates.from({ ExecProbeTimeout: true }).warnings, [
      'Setting GA feature gate ExecProbeTimeout=true. It will be removed in a future release.',
    ]);
  });

  it('AllAlpha switches the alpha gates not set explicitly', () => {
    const gates = FeatureGates.from({ AllAlpha: true, MemoryQoS: false }).gates;
    assert.equal(gates.enabled('CustomCPUCFSQuotaPeriod'), true);
    assert.equal(gates.enabled('MemoryQoS'), false);
    assert.equal(gates.enabled('NodeLogQuery'), false);
  });
});
