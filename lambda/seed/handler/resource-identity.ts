/**
 * Which CloudFormation resource a place's claim and manifest belong to. The physical id names only
 * the place, which two resources can share: a construct renamed or moved in its stack (a new logical
 * id, the same place; CloudFormation creates the new resource, then deletes the old one) and twin
 * stacks seeding one file system. So a resource is its physical id with its stack and logical id,
 * which every event the Provider framework delivers carries. A claim written by an earlier version
 * holds the physical id alone and is taken as the claim of the resource with that physical id.
 */
export interface ResourceIdentity {
  readonly physicalId: string;
  readonly stackId?: string;
  readonly logicalId?: string;
}

const SEPARATOR = '\n';

/** The identity of the resource an event is for, as claims and manifests record it. */
export function identityOf(event: { StackId?: string; LogicalResourceId?: string }, physicalId: string): string {
  if (!event.StackId || !event.LogicalResourceId) return physicalId;
  return [physicalId, event.StackId, event.LogicalResourceId].join(SEPARATOR);
}

export function parseIdentity(recorded: string): ResourceIdentity {
  const [physicalId, stackId, logicalId] = recorded.split(SEPARATOR);
  return stackId && logicalId ? { physicalId, stackId, logicalId } : { physicalId };
}

/** Whether two recorded identities are one resource (one without a stack, an earlier version's, by its physical id). */
export function sameResource(a: string, b: string): boolean {
  const [x, y] = [parseIdentity(a), parseIdentity(b)];
  if (!x.stackId || !y.stackId) return x.physicalId === y.physicalId;
  return x.physicalId === y.physicalId && x.stackId === y.stackId && x.logicalId === y.logicalId;
}

/** Whether a claim by `holder` belongs to another stack than `claimant`'s (unknowable for an earlier version's claim: no). */
export function ofAnotherStack(holder: string, claimant: string): boolean {
  const [x, y] = [parseIdentity(holder), parseIdentity(claimant)];
  return !!x.stackId && !!y.stackId && x.stackId !== y.stackId;
}

/** `resource Content of stack Blue (arn:...)`, for messages. */
export function describeResource(recorded: string): string {
  const { physicalId, stackId, logicalId } = parseIdentity(recorded);
  if (!stackId) return `resource ${physicalId}`;
  const stackName = /:stack\/([^/]+)\//.exec(stackId)?.[1] ?? stackId;
  return `resource ${logicalId} of stack ${stackName} (${stackId})`;
}
