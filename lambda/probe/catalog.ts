import { Scenario } from './scenario';
import { blockSync } from './scenarios/block-sync';
import { createFiles } from './scenarios/create-files';
import { locking } from './scenarios/locking';
import { metadata } from './scenarios/metadata';
import { parallelWriters } from './scenarios/parallel-writers';
import { randomReads } from './scenarios/random-reads';
import { smallFileTree } from './scenarios/small-file-tree';
import { writeSizes } from './scenarios/write-sizes';

/** Every scenario the probe runs, in the order it runs them. */
export const SCENARIOS: readonly Scenario[] = [
  writeSizes, createFiles, blockSync, parallelWriters, smallFileTree, randomReads, metadata, locking,
];

export function scenarioNamed(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}
