/**
 * For the probe's fidelity on efs-sim (test/lambda/probe/efs-sim.test.ts and bench/probe-accuracy.ts): each
 * efs-sim operation kind, the probe operation whose latency it makes, and a small request that runs it.
 */
export const FIDELITY_CASES: ReadonlyArray<{ kind: string; operation: string; scenarios: object }> = [
  { kind: 'getattr', operation: 'stat', scenarios: { metadata: { files: 30, listings: 3 } } },
  { kind: 'open', operation: 'open-close', scenarios: { metadata: { files: 30, listings: 3 } } },
  { kind: 'readdir', operation: 'readdir', scenarios: { metadata: { files: 30, listings: 20 } } },
  { kind: 'rename', operation: 'rename', scenarios: { metadata: { files: 30, listings: 3 } } },
  { kind: 'unlink', operation: 'unlink', scenarios: { metadata: { files: 30, listings: 3 } } },
  { kind: 'setattr', operation: 'create', scenarios: { metadata: { files: 30, listings: 3 } } },
  { kind: 'create', operation: 'create-serial', scenarios: { 'create-files': { files: 30, threads: 4, directories: 4 } } },
  { kind: 'write', operation: 'write-1KiB-file', scenarios: { 'write-sizes': { files: 30, sizesBytes: [1024] } } },
  { kind: 'fsync', operation: 'write-64KiB-blocks-sync-each-block', scenarios: { 'block-sync': { fileBytes: 30 * 65536, blockSizesBytes: [65536] } } },
  { kind: 'read', operation: 'read-file', scenarios: { 'random-reads': { files: 20, reads: 60, readers: 1 } } },
];

/**
 * efs-sim flags for the fidelity runs: attributes never cached, names always, so every stat is one
 * round trip, as after the attribute cache expired.
 */
export const FIDELITY_SIM_FLAGS = ['--attr-timeout=0', '--entry-timeout=3600'];
