import type { EFSClient } from '@aws-sdk/client-efs';
import type { DescribedMountTarget } from './custom-resource';

/**
 * DescribeMountTargets, every page, for the mount targets the gate's properties leave out. The SDK
 * loads on first use: a gate whose properties give everything never pays for it.
 */
const clients = new Map<string, EFSClient>();

export async function describeMountTargets(fileSystemId: string, region: string, endpoint?: string): Promise<DescribedMountTarget[]> {
  const { EFSClient, paginateDescribeMountTargets } = await import('@aws-sdk/client-efs');
  const key = `${region} ${endpoint ?? ''}`;
  if (!clients.has(key)) clients.set(key, new EFSClient({ region, endpoint }));
  const out: DescribedMountTarget[] = [];
  for await (const page of paginateDescribeMountTargets({ client: clients.get(key)! }, { FileSystemId: fileSystemId })) {
    for (const t of page.MountTargets ?? []) {
      out.push({
        id: t.MountTargetId!,
        availabilityZone: t.AvailabilityZoneName ?? '',
        lifeCycleState: t.LifeCycleState ?? 'unknown',
        ipv4: t.IpAddress || undefined,
        ipv6: t.Ipv6Address || undefined,
      });
    }
  }
  return out;
}
