import { CloudFormationClient, DescribeStackResourceCommand, ListStackResourcesCommand, StackResourceSummary } from '@aws-sdk/client-cloudformation';
import { CLAIMLESS_SEED_RESOURCE_TYPES, placesOverlap, SEED_PLACE_METADATA } from '../../../lib/seed/contract/seed-place';
import { boundedRequests, callBefore } from '../../shared/aws-call-deadline';

/** A live seed resource of the stack whose place shares files with the place asked about. */
export interface ServingSeed {
  readonly logicalId: string;
  readonly type: string;
  readonly place: string;
}

/** Statuses of a resource on its way out: it serves nothing any more. */
const LEAVING = new Set(['DELETE_IN_PROGRESS', 'DELETE_COMPLETE', 'DELETE_SKIPPED']);

/**
 * The Distributed Map or DataSync seed resource of stack `stackId` that is not being deleted and
 * whose Metadata names a place overlapping `place`, if any: after an engine change the new engine's
 * resource serves the old one's place without a claim there, and the old one's Delete must leave it
 * (a single-function seed's claim already says so). Only this stack's resources are read
 * (ListStackResources, then DescribeStackResource for those seeds': a summary carries no Metadata),
 * each request ending by `deadline`. A stack that does not exist has none; nor has a resource
 * gone between the two calls.
 */
export async function liveSeedServing(stackId: string, logicalId: string, place: string, deadline: number): Promise<ServingSeed | undefined> {
  const client = new CloudFormationClient({ region: regionOf(stackId), requestHandler: boundedRequests() });
  const ask = <T>(what: string, call: (abortSignal: AbortSignal) => Promise<T>) => callBefore(deadline, `CloudFormation's ${what} for ${stackId}`, call);
  try {
    const seeds: StackResourceSummary[] = [];
    let nextToken: string | undefined;
    do {
      const page = await ask('ListStackResources', (abortSignal) => client.send(new ListStackResourcesCommand({ StackName: stackId, NextToken: nextToken }), { abortSignal }));
      seeds.push(...(page.StackResourceSummaries ?? []).filter((r) => r.LogicalResourceId !== logicalId
        && CLAIMLESS_SEED_RESOURCE_TYPES.includes(r.ResourceType ?? '') && !LEAVING.has(r.ResourceStatus ?? '')));
      nextToken = page.NextToken;
    } while (nextToken);
    for (const seed of seeds) {
      const detail = await ask('DescribeStackResource', (abortSignal) =>
        client.send(new DescribeStackResourceCommand({ StackName: stackId, LogicalResourceId: seed.LogicalResourceId }), { abortSignal }))
        .then((answer) => answer.StackResourceDetail, (err) => { if (doesNotExist(err)) return undefined; throw err; });
      if (!detail || LEAVING.has(detail.ResourceStatus ?? '')) continue;
      const served = placeOfMetadata(detail.Metadata);
      if (served && placesOverlap(place, served)) return { logicalId: seed.LogicalResourceId!, type: seed.ResourceType!, place: served };
    }
    return undefined;
  } catch (err) {
    if (doesNotExist(err)) return undefined;
    throw err;
  } finally {
    client.destroy();
  }
}

/** CloudFormation's ValidationError for a stack, or a resource of it, it does not have. */
function doesNotExist(err: unknown): boolean {
  return (err as Error).name === 'ValidationError' && /does not exist/.test((err as Error).message);
}

function placeOfMetadata(metadata: string | undefined): string | undefined {
  try {
    const value = (JSON.parse(metadata ?? '{}') as Record<string, unknown>)[SEED_PLACE_METADATA];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The Region of a stack's ARN (`arn:aws:cloudformation:<region>:...`), else the function's. */
function regionOf(stackId: string): string | undefined {
  return /^arn:[^:]+:cloudformation:([^:]+):/.exec(stackId)?.[1] ?? process.env.AWS_REGION;
}
