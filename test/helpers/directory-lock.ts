/**
 * A lock between the worker processes of a test run: a directory (made atomically) with its
 * holder's identity in an `owner` file. A lock whose holder is gone, or held longer than its
 * owner said it would, is taken over.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processIdentity, processIsAlive } from './process-identity.js';

/** Whether the lock is held by a live process (its owner file) for less than `maxHoldMs`. */
function lockIsLive(lock: string, maxHoldMs: number): boolean {
  let age: number;
  try {
    age = Date.now() - statSync(lock).mtimeMs;
  } catch {
    return false;
  }
  if (age > maxHoldMs) return false;
  try {
    return processIsAlive(readFileSync(join(lock, 'owner'), 'utf8'));
  } catch {
    return age < 10_000; // just made: its owner file comes next
  }
}

/**
 * Takes the lock at `lock`, waiting while another live process holds it.
 *
 * @param maxHoldMs how long a holder may keep it: after that, a waiter takes it over.
 * @returns the function that gives it back.
 */
export async function acquireLock(lock: string, maxHoldMs: number): Promise<() => void> {
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Held by another worker, or left by one that ended without giving it back.
    }
    if (lockIsLive(lock, maxHoldMs)) await sleep(250);
    else rmSync(lock, { recursive: true, force: true });
  }
  writeFileSync(join(lock, 'owner'), processIdentity());
  return () => rmSync(lock, { recursive: true, force: true });
}
