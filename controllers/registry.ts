/**
 * The controller registry: every controller the manager can run, under kube-controller-manager's
 * names (the canonical `*-controller` name and the short alias `--controllers` has always taken),
 * and the selection rules of `--controllers`.
 */
import type { ControllerManagerConfig } from './config.ts';
import type { ControllerDescriptor } from './framework/controller.ts';
import { bootstrapSignerController } from './bootstrap/bootstrapsigner.ts';
import { tokenCleanerController } from './bootstrap/tokencleaner.ts';
import { nodeLifecycleController } from './nodelifecycle/controller.ts';
import { csrApprovingController } from './certificates/approver.ts';
import { csrCleanerController } from './certificates/cleaner.ts';
import { csrSigningController } from './certificates/signer.ts';
import { garbageCollectorController } from './garbagecollector/garbagecollector.ts';
import { namespaceController } from './namespace/namespace-controller.ts';

export interface RegisteredController extends ControllerDescriptor<ControllerManagerConfig> {
  /** Other names `--controllers` accepts for it (upstream's short names). */
  aliases: string[];
}

/** Every controller, in start order. */
export const controllerRegistry: RegisteredController[] = [
  // Each controller module exports its descriptor; one line here registers it.
  bootstrapSignerController,
  tokenCleanerController,
  nodeLifecycleController,
  csrSigningController,
  csrApprovingController,
  csrCleanerController,
  garbageCollectorController,
  namespaceController,
];

function matches(controller: RegisteredController, name: string): boolean {
  return controller.name === name || controller.aliases.includes(name);
}

/** The --controllers entries naming no known controller, as upstream words it. `-name` of an unknown name is allowed. */
export function unknownControllers(entries: string[]): string[] {
  return entries
    .filter((entry) => entry !== '*' && !entry.startsWith('-'))
    .filter((entry) => !controllerRegistry.some((c) => matches(c, entry)))
    .map((entry) => `${JSON.stringify(entry)} is not in the list of known controllers`);
}

/**
 * Whether `--controllers` enables `controller`: an entry naming it (or `-name`) decides, the
 * first such entry winning; otherwise `*` enables those on by default; otherwise it is off.
 */
export function isEnabled(controller: RegisteredController, entries: string[]): boolean {
  for (const entry of entries) {
    if (matches(controller, entry)) return true;
    if (entry.startsWith('-') && matches(controller, entry.slice(1))) return false;
  }
  return entries.includes('*') && controller.enabledByDefault;
}

export function enabledControllers(entries: string[]): RegisteredController[] {
  return controllerRegistry.filter((c) => isEnabled(c, entries));
}
