import { CustomResource, Stack } from 'aws-cdk-lib';

/**
 * Seeds in flight at once in a stack. CloudFormation creates every resource whose dependencies are
 * done at once, and a seed in flight holds two Lambda executions (the Provider framework's function
 * waits on the seed's own): 8 seeds created together needed 17, more than the 10 concurrent
 * executions a new account gets, and the framework's retries of `TooManyRequestsException` ran out.
 * Each seed after the first three waits for the one three places before it, so the seeds of a stack
 * hold at most 6 executions, whatever their number.
 */
export const SEEDS_IN_FLIGHT = 3;

const lanes = new WeakMap<Stack, CustomResource[]>();

/** Puts `resource` in its stack's lanes: it waits for the seed `SEEDS_IN_FLIGHT` places before it. */
export function enterSeedLane(resource: CustomResource): void {
  const stack = Stack.of(resource);
  const seeds = lanes.get(stack) ?? [];
  lanes.set(stack, seeds);
  const ahead = seeds[seeds.length - SEEDS_IN_FLIGHT];
  if (ahead) resource.node.addDependency(ahead);
  seeds.push(resource);
}
