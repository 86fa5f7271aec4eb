/**
 * Namespace, dimensions and names of the probe's metrics: shared by the handler, which publishes
 * them, and the constructs, which read them (so this module imports nothing).
 */
export const PROBE_METRICS_NAMESPACE = 'CdkEfsKit';
export const PROBE_DIMENSIONS = { fileSystem: 'FileSystemId', scenario: 'Scenario', operation: 'Operation' } as const;
/** Per scenario and operation, one value per round. */
export const PROBE_METRIC = {
  latencyP50: 'LatencyP50',
  latencyP90: 'LatencyP90',
  latencyP99: 'LatencyP99',
  latencyMax: 'LatencyMax',
  opsPerSecond: 'OperationsPerSecond',
  throughput: 'ThroughputBytesPerSecond',
  errors: 'OperationErrors',
  /** Per file system: failed scenarios, and requests refused or invalid (a canary that measures nothing). */
  failures: 'ProbeFailures',
} as const;
