import type { EFSClient } from '@aws-sdk/client-efs';
import { boundedRequests, callBefore } from '../shared/aws-call-deadline';
import type { DescribedMountTarget } from './custom-resource';

/**
 * DescribeMountTargets, every page, for the mount targets the gate's properties leave out, each
 * request aborted at `deadline` (ms since the epoch). The SDK loads on first use: a gate whose
 * properties give everything never pays for it.
 */
const clients = new Map<string, EFSClient>();

export async function describeMountTargets(fileSystemId: string, region: string, deadline: number, endpoint?: string): Promise<DescribedMountTarget[]> {
  const { EFSClient, DescribeMountTargetsCommand } = await import('@aws-sdk/client-efs');
  const key = `${region} ${endpoint ?? ''}`;
  if (!clients.has(key)) clients.set(key, new EFSClient({ region, endpoint, requestHandler: boundedRequests() }));
  const client = clients.get(key)!;
  const out: DescribedMountTarget[] = [];
  let marker: string | undefined;
  do {
    const command = new DescribeMountTargetsCommand({ FileSystemId: fileSystemId, Marker: marker });
    const page = await callBefore(deadline, 'DescribeMountTargets', (abortSignal) => client.send(command, { abortSignal }));
    for (const t of page.MountTargets ?? []) {
      out.push({
        id: t.MountTargetId!,
        availabilityZone: t.AvailabilityZoneName ?? '',
        lifeCycleState: t.LifeCycleState ?? 'unknown',
        ipv4: t.IpAddress || undefined,
        ipv6: t.Ipv6Address || undefined,
      });
    }
    marker = page.NextMarker;
  } while (marker);
  return out;
}
