/**
 * Namespace, dimensions and names of the seed's metrics: shared by the handler, which publishes them,
 * and the constructs, which read them (so this module imports nothing).
 */
export const SEED_METRICS_NAMESPACE = 'CdkEfsKit';
/** Powertools adds `service` to every metric's dimensions; the seed adds `Seed`. */
export const SEED_METRICS_SERVICE = 'cdk-efs-kit-seed';
export const SEED_METRIC = {
  files: 'SeedFiles',
  bytes: 'SeedBytes',
  written: 'SeedFilesWritten',
  skipped: 'SeedFilesSkipped',
  failed: 'SeedFilesFailed',
  duration: 'SeedDuration',
  rate: 'SeedFilesPerSecond',
  /** Requests of the seed's custom resource that failed: a failed slice, the time limit, a newer request taking over. */
  runsFailed: 'SeedRunsFailed',
} as const;
