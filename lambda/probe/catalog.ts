import { Scenario } from './scenario';
import { blockSync } from './scenarios/block-sync';
import { createFiles } from './scenarios/create-files';
import { locking } from './scenarios/locking';
import { metadata } from './scenarios/metadata';
import { parallelWriters } from './scenarios/parallel-writers';
import { randomReads } from './scenarios/random-reads';
import { s3FilesDirectRead } from './scenarios/s3-files-direct-read';
import { s3FilesExportLag } from './scenarios/s3-files-export-lag';
import { s3FilesImport } from './scenarios/s3-files-import';
import { smallFileTree } from './scenarios/small-file-tree';
import { writeSizes } from './scenarios/write-sizes';

/** Every scenario the probe runs, in the order it runs them: on any file system, then S3 Files' own (`needsBucket`). */
export const SCENARIOS: readonly Scenario[] = [
  writeSizes, createFiles, blockSync, parallelWriters, smallFileTree, randomReads, metadata, locking,
  s3FilesImport, s3FilesDirectRead, s3FilesExportLag,
];

/** The scenarios a request without a list runs: S3 Files' own only where the probe has the bucket. */
export function defaultScenarios(withBucket: boolean): readonly Scenario[] {
  return SCENARIOS.filter((s) => withBucket || !s.needsBucket);
}

export function scenarioNamed(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}
