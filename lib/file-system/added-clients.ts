import { IConstruct } from 'constructs';
import { BenchmarkProbe } from '../probe/benchmark-probe';
import { FileSystemSeed } from '../seed/file-system-seed';

/** The seeds and probes addSeed and addProbe made on `files` so far (its children), which addMonitoring watches. */
export function addedSeedsAndProbes(files: IConstruct): { seeds: FileSystemSeed[]; probes: BenchmarkProbe[] } {
  const children = files.node.children;
  return { seeds: children.filter(FileSystemSeed.isFileSystemSeed), probes: children.filter(BenchmarkProbe.isBenchmarkProbe) };
}
