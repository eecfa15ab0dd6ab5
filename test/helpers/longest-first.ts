/**
 * The suite's file order: within each group (`sequence.groupOrder`: the timing tier after the
 * rest), the files that took longest in a recorded run first (`test/durations.json`, seconds by
 * `project:path`, files of 5 s and more), then the others. Vitest's own order needs its results
 * cache, which a fresh clone (CI) lacks: it then sorts by project name and size, and the longest
 * files (Horizon's 2-3 minutes, tempest's 1-2) started after 11 minutes and ended the run alone.
 * Refresh the durations with `npm run test:durations` after a full run when files grow or move.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const DURATIONS = JSON.parse(readFileSync(new URL('../durations.json', import.meta.url), 'utf8')) as Record<string, number>;

/** Longest recorded files first, within each sequence group. */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (file: TestSpecification) => DURATIONS[`${file.project.name}:${relative(file.project.config.root, file.moduleId)}`] ?? 0;
    return [...files].sort((a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || seconds(b) - seconds(a));
  }
}
