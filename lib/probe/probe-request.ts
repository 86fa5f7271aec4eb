/**
 * What a [BenchmarkProbe](#cdk-efs-kit.BenchmarkProbe) is asked to run: the JSON its function takes, the canary's request,
 * and what the `cdk-efs-kit probe` command builds from its flags. The handler checks every request
 * again (it also accepts `scenarios` as a plain list of names).
 */
export interface ProbeRequest {
  /**
   * Scenarios to run, by name, each with its parameters (`{}` for its defaults), e.g.
   * `{ 'write-sizes': { files: 10 }, metadata: {} }`. `cdk-efs-kit probe --list` prints them all.
   * @default - every scenario, with its defaults
   */
  readonly scenarios?: { [scenario: string]: { [parameter: string]: any } };
  /**
   * Times every scenario runs.
   * @default 1
   */
  readonly rounds?: number;
  /**
   * Pause between rounds, in seconds.
   * @default 10
   */
  readonly pauseSeconds?: number;
  /**
   * Bytes the run may write and read in all; at most the probe's own limit.
   * @default - the probe's limit
   */
  readonly maxBytes?: number;
  /**
   * Seconds the run may take; at most the probe's own limit.
   * @default - the probe's limit
   */
  readonly maxSeconds?: number;
  /**
   * A name for the run, shown by `compare`.
   * @default 'probe'
   */
  readonly label?: string;
}

/** One operation of one probe scenario, e.g. `open-close` of `metadata`: what the probe times. */
export interface ProbeOperation {
  /** The scenario, e.g. `metadata`. */
  readonly scenario: string;
  /** The operation, e.g. `open-close`. */
  readonly operation: string;
}
