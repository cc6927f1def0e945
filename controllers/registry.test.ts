import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { controllerRegistry, isEnabled, unknownControllers, type RegisteredController } from './registry.ts';

const controller = (name: string, aliases: string[], enabledByDefault: boolean): RegisteredController => ({
  name,
  aliases,
  enabledByDefault,
  serviceAccount: name,
  start: () => {},
});

describe('--controllers', () => {
  const gc = controller('garbage-collector-controller', ['garbagecollector'], true);
  const signer = controller('bootstrap-signer-controller', ['bootstrapsigner'], false);

  it("'*' runs the controllers on by default", () => {
    assert.equal(isEnabled(gc, ['*']), true);
    assert.equal(isEnabled(signer, ['*']), false);
  });

  it('a name or alias turns one on, -name off, the first entry naming it winning', () => {
    assert.equal(isEnabled(signer, ['*', 'bootstrapsigner']), true);
    assert.equal(isEnabled(signer, ['bootstrap-signer-controller']), true);
    assert.equal(isEnabled(gc, ['*', '-garbagecollector']), false);
    assert.equal(isEnabled(gc, ['-garbage-collector-controller', 'garbagecollector']), false);
    assert.equal(isEnabled(gc, ['bootstrapsigner']), false, 'without * only the named run');
  });

  it('names every unknown controller as upstream does; -unknown is allowed', () => {
    assert.deepEqual(unknownControllers(['*', 'nosuch', '-other']), ['"nosuch" is not in the list of known controllers']);
  });

  it('registers every controller under a unique name and alias', () => {
    const names = controllerRegistry.flatMap((c) => [c.name, ...c.aliases]);
    assert.equal(new Set(names).size, names.length);
  });
});
