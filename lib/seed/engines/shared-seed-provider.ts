import { createHash } from 'crypto';
import { Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { DeployTimeProvider, DeployTimeProviderProps } from '../../core/deploy-time-run';

/**
 * Seeds share their handlers: one set of functions and one aws-cdk Provider (with its framework
 * functions and waiter state machine) for every seed whose handlers would be built the same, found
 * in the seed's stack by a construct id made of what they are built from, as aws-cdk's
 * SingletonFunction is. The handlers take everything about a seed (source, place, run) from its
 * resource's properties, so what stays per seed is its custom resource, its dependencies, its
 * grants (each added to the shared functions' roles: their policy is the union of what the sharing
 * seeds need) and its metrics.
 */
export interface SharedSeedProviderProps extends DeployTimeProviderProps {
  /** Which handlers, e.g. 'SingleFunction': the start of the shared construct's id. */
  readonly kind: string;
  /**
   * Everything the functions are built from (file system, access point, sizes, whether the deploy
   * waits...): seeds with equal keys get the same provider, any difference another one.
   */
  readonly key: Record<string, string | number | boolean>;
}

/** The provider for `seed` and its kind of handlers: the one already in the seed's stack for this key, or a new one. */
export function sharedSeedProvider(seed: Construct, props: SharedSeedProviderProps): DeployTimeProvider {
  const stack = Stack.of(seed);
  const id = `CdkEfsKitSeed${props.kind}${keyHash(props.key)}`;
  // The id is ours and says what it holds: a construct under it is the provider made for this key.
  return (stack.node.tryFindChild(id) as DeployTimeProvider | undefined) ?? new DeployTimeProvider(stack, id, props);
}

/** Eight hex digits of the key's hash: the key's fields in a fixed order, so equal keys give equal ids. */
function keyHash(key: Record<string, string | number | boolean>): string {
  const canonical = JSON.stringify(Object.keys(key).sort().map((name) => [name, key[name]]));
  return createHash('sha256').update(canonical).digest('hex').slice(0, 8);
}
