import { IConstruct } from 'constructs';

const VALIDATION_ERROR = Symbol.for('cdk-efs-kit.ValidationError');

/**
 * Props or arguments that synth refuses, scoped to the construct they were given to, as aws-cdk's
 * ValidationError is: `constructPath` says which, and the message names it (it is put in front
 * where the message does not already name it). Data classes with no construct (AlarmThreshold,
 * NfsMountOptions, SeedSource, EfsPricing) throw it unscoped. Internal: jsii cannot export an Error
 * subclass, so users see an Error whose message says where; `isValidationError` tells one apart
 * across copies of the package.
 */
export class ValidationError extends Error {
  /** The path of the construct whose props were refused; undefined where there is no construct. */
  public readonly constructPath?: string;

  constructor(message: string, scope?: IConstruct) {
    const at = scope?.node.path;
    super(at === undefined || message.includes(at) ? message : `${at}: ${message}`);
    this.name = 'ValidationError';
    this.constructPath = at;
    Object.defineProperty(this, VALIDATION_ERROR, { value: true });
  }
}

export function isValidationError(x: unknown): x is ValidationError {
  return x instanceof Error && (x as unknown as Record<symbol, unknown>)[VALIDATION_ERROR] === true;
}
