/**
 * A real, small file system for disk-full tests: a tmpfs of a few MiB mounted on a temporary
 * directory (needs root and mount rights; {@link mountSmallDisk} says why when it cannot). A
 * filler file takes every free byte, so writes there fail with ENOSPC as on a full disk, without
 * touching the machine's own disks; removing the filler frees the space again.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A mounted tmpfs. */
export interface SmallDisk {
  /** Where it is mounted. */
  path: string;
  /** Fills every free byte with a filler file (written until ENOSPC). */
  fill(): void;
  /** Removes the filler file: the space is free again. */
  free(): void;
  /** Unmounts it and removes the mount point. Safe to call more than once. */
  unmount(): void;
}

/** A mounted disk, or why none could be mounted (not root, no mount rights in this container). */
export type SmallDiskResult = { disk: SmallDisk } | { unavailable: string };

/**
 * Mounts a tmpfs of `sizeMb` MiB, owned by `owner` (uid and gid) when given, e.g. for a database
 * server running as its own system user.
 */
export function mountSmallDisk(sizeMb: number, owner?: { uid: number; gid: number }): SmallDiskResult {
  if (process.getuid?.() !== 0) return { unavailable: 'mounting a tmpfs needs root' };
  const path = mkdtempSync(join(tmpdir(), 'tariff-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'tmpfs', path], { stdio: 'pipe' });
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    const failure = error as { stderr?: Buffer; message: string };
    return { unavailable: `mount -t tmpfs failed: ${failure.stderr?.toString().trim() || failure.message}` };
  }
  if (owner) chownSync(path, owner.uid, owner.gid);
  const filler = join(path, 'filler');
  let mounted = true;
  const disk: SmallDisk = {
    path,
    fill() {
      const descriptor = openSync(filler, 'a');
      try {
        for (const chunkSize of [256 * 1024, 4096, 512, 1]) {
          const chunk = Buffer.alloc(chunkSize, 0x61);
          try {
            for (;;) writeSync(descriptor, chunk);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          }
        }
      } finally {
        closeSync(descriptor);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      if (!mounted) return;
      execFileSync('umount', ['-l', path], { stdio: 'pipe' });
      mounted = false;
      rmSync(path, { recursive: true, force: true });
    },
  };
  return { disk };
}
