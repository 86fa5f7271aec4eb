import { createHash } from 'crypto';
import { Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { DeployTimeProvider, DeployTimeProviderProps } from '../../core/deploy-time-run';

/**
 * Seeds share their handlers: one set of functions and one aws-cdk Provider (with its framework
 * functions and waiter state machine) for every seed whose handlers must be built the same, found
 * in the seed's stack by a construct id made of what they are built from, as aws-cdk's
 * SingletonFunction is. The handlers take everything else about a seed (source, place, run,
 * per-request settings) from its resource's properties, so what stays per seed is its custom
 * resource, its dependencies, its grants (each added to the shared functions' roles: their policy
 * is the union of what the sharing seeds need) and its metrics.
 */
export interface SharedSeedProviderProps extends DeployTimeProviderProps {
  /** Which handlers, e.g. 'SingleFunction': the start of the shared construct's id. */
  readonly kind: string;
  /**
   * What the functions must be built from and no request can change (the access point they mount,
   * their memory, their subnets): seeds with equal keys get the same provider, any difference another one.
   */
  readonly key: Record<string, string | number | boolean>;
}

const PREFIX = 'CdkEfsKitSeed';

/** The provider for `seed` and its kind of handlers: the one already in the seed's stack for this key, or a new one. */
export function sharedSeedProvider(seed: Construct, props: SharedSeedProviderProps): DeployTimeProvider {
  const stack = Stack.of(seed);
  const id = `${PREFIX}${props.kind}${keyHash(props.key)}`;
  // The id is ours and says what it holds: a construct under it is the provider made for this key.
  return (stack.node.tryFindChild(id) as DeployTimeProvider | undefined) ?? new DeployTimeProvider(stack, id, props);
}

/**
 * The construct id of a seed's custom resource on `handlers`: `base` and the provider's kind and key
 * hash, e.g. `ResourceViaSingleFunction1a2b3c4d`. A change that moves the seed to other handlers
 * (another access point, size or subnets) gives the resource a new logical id with its new
 * ServiceToken: CloudFormation refuses a resource a new ServiceToken ("Modifying service token is
 * not allowed"), but a new logical id is a replacement it accepts. It creates the new resource
 * through the new handlers, then deletes the old one through the old ones, which still mount the
 * old place: the old resource references them, so CloudFormation deletes them after it.
 */
export function resourceIdVia(base: string, handlers: DeployTimeProvider): string {
  return `${base}Via${handlers.node.id.slice(PREFIX.length)}`;
}

/** Eight hex digits of the key's hash: the key's fields in a fixed order, so equal keys give equal ids. */
function keyHash(key: Record<string, string | number | boolean>): string {
  const canonical = JSON.stringify(Object.keys(key).sort().map((name) => [name, key[name]]));
  return createHash('sha256').update(canonical).digest('hex').slice(0, 8);
}
