/**
 * How long a deploy waits for a seed. CloudFormation gives a custom resource at most an hour
 * (ServiceTimeout: 1 to 3,600 seconds, default 3,600;
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-cloudformation-customresource.html),
 * after which the stack fails while whatever the handler started goes on unobserved. So a waited
 * seed has a time limit of its own, inside the hour, which its handlers enforce: when it runs out
 * they stop the run and fail the resource with a message that says so. The constructs write the
 * limit into the resource's properties; the handlers read it from there. No SDK imports: the
 * constructs load this module too.
 */

/** CloudFormation's limit for a custom resource, and the ServiceTimeout the constructs set. */
export const CUSTOM_RESOURCE_TIMEOUT_SECONDS = 3600;

/**
 * A waited seed's limit, counted from the start of its onEvent. The rest of the hour is for what
 * the limit does not cover: the Provider framework's start, a last slice finishing its in-flight
 * writes, one more poll, and the response to CloudFormation.
 */
export const DEPLOY_TIME_LIMIT_SECONDS = 3000;

/** The resource property that carries the limit, in whole seconds. */
export const TIME_LIMIT_PROPERTY = 'TimeLimitSeconds';

/** What carries the limit: a resource's properties. */
export interface TimeLimitProperties {
  readonly TimeLimitSeconds?: unknown;
}

/** The limit the properties set, in seconds, checked; undefined when they set none (the deploy does not wait). */
export function timeLimitSeconds(properties: TimeLimitProperties | undefined): number | undefined {
  const value = properties?.TimeLimitSeconds;
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || seconds < 1 || seconds > CUSTOM_RESOURCE_TIMEOUT_SECONDS) {
    throw new Error(`${TIME_LIMIT_PROPERTY} must be a whole number of seconds from 1 to ${CUSTOM_RESOURCE_TIMEOUT_SECONDS}, got ${JSON.stringify(value)}`);
  }
  return seconds;
}

/** A limit in words, for messages: '50 minutes'. */
export function describeSeconds(seconds: number): string {
  return seconds % 60 === 0 ? `${seconds / 60} minute${seconds === 60 ? '' : 's'}` : `${seconds} second${seconds === 1 ? '' : 's'}`;
}
