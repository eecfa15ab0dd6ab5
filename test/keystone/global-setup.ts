/**
 * Vitest global setup of the run's shared Keystone (shared.ts): names the run's state directory
 * (run-directory.ts) and gives it to the test files (`inject('tariffKeystoneRun')`); the first
 * file that needs Keystone starts it there. At the end of the run it stops that Keystone and
 * removes the directory. It first stops what runs killed before their teardown left behind.
 * Several projects may declare it: they share the directory, and the teardowns after the first
 * find nothing left to do.
 */
import type { TestProject } from 'vitest/node';
import { makeRunDirectory, removeAbandonedRunDirectories, removeRunDirectory } from './run-directory.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The state directory of the run's shared Keystone. */
    tariffKeystoneRun: string;
  }
}

/** Provides the run's Keystone directory; returns the teardown that stops that Keystone. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await removeAbandonedRunDirectories();
  const directory = makeRunDirectory();
  project.provide('tariffKeystoneRun', directory);
  return () => removeRunDirectory(directory);
}
