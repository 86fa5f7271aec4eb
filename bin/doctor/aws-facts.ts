import type { IAMClient } from '@aws-sdk/client-iam';
import type { DescribedMountTarget } from '../../lambda/mount-readiness/custom-resource';
import { boundedRequests } from '../../lambda/shared/aws-call-deadline';
import type { Caller, PolicyDocument } from '../../lambda/shared/mount-checks/iam-policy';
import type { PosixIdentity } from '../../lambda/shared/mount-checks/posix-identity';

/**
 * What the doctor reads from AWS when it has credentials: the file system's mount targets, the
 * access point, the file system policy, who the caller is and the caller's own IAM policies. Each
 * read fails on its own (a role may describe mount targets but not read IAM): a failure becomes a
 * problem in words, and the checks that needed it say so. The SDK loads only here, and only when
 * there are credentials.
 */
export interface AwsTarget {
  readonly region: string;
  readonly profile?: string;
  /** One endpoint for every service, e.g. a local test server. */
  readonly endpoint?: string;
}

export interface AccessPointFacts {
  readonly id: string;
  readonly arn: string;
  readonly fileSystemId: string;
  readonly lifeCycleState: string;
  readonly posixUser?: PosixIdentity;
  readonly rootPath: string;
  readonly rootCreationInfo?: { uid: number; gid: number; mode: number };
}

/** Each fact, or why it could not be read. */
export type Fact<T> = { readonly value: T } | { readonly problem: string };

export interface AwsFacts {
  readonly caller: Fact<Caller>;
  readonly mountTargets: Fact<{ ownerId?: string; targets: DescribedMountTarget[] }>;
  /** Null: the file system has no policy. */
  readonly fileSystemPolicy: Fact<PolicyDocument | null>;
  readonly accessPoint?: Fact<AccessPointFacts>;
  readonly identityPolicies: Fact<PolicyDocument[] | 'account-root'>;
}

const quiet = () => {
  // The lockfile pins SDK releases that run on Node 20; the SDK's warning is about later ones, which a user of this command cannot act on.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
};

/** Why there are no credentials to use, or undefined when there are. */
export async function missingCredentials(target: AwsTarget): Promise<string | undefined> {
  quiet();
  const { STSClient } = await import('@aws-sdk/client-sts');
  const sts = new STSClient(clientConfig(target));
  try {
    await sts.config.credentials();
    return undefined;
  } catch (err) {
    return `no AWS credentials (${(err as Error).message.split('\n')[0]})`;
  } finally {
    sts.destroy();
  }
}

/** The Region the SDK would use (the profile's), or undefined. */
export async function defaultRegion(profile?: string): Promise<string | undefined> {
  quiet();
  const { STSClient } = await import('@aws-sdk/client-sts');
  const sts = new STSClient({ profile });
  try {
    return await sts.config.region();
  } catch {
    return undefined;
  } finally {
    sts.destroy();
  }
}

const clientConfig = (target: AwsTarget) => ({ region: target.region, profile: target.profile, endpoint: target.endpoint, requestHandler: boundedRequests() });

const problemOf = (err: unknown) => {
  const e = err as Error;
  return `${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message}`;
};

async function fact<T>(read: () => Promise<T>): Promise<Fact<T>> {
  try {
    return { value: await read() };
  } catch (err) {
    return { problem: problemOf(err) };
  }
}

export async function readAwsFacts(fileSystemId: string, accessPointId: string | undefined, target: AwsTarget): Promise<AwsFacts> {
  quiet();
  const [efsSdk, stsSdk, iamSdk] = await Promise.all([import('@aws-sdk/client-efs'), import('@aws-sdk/client-sts'), import('@aws-sdk/client-iam')]);
  const efs = new efsSdk.EFSClient(clientConfig(target));
  const sts = new stsSdk.STSClient(clientConfig(target));
  const iam = new iamSdk.IAMClient(clientConfig(target));
  try {
    const [caller, mountTargets, fileSystemPolicy, accessPoint] = await Promise.all([
      fact(() => callerOf(sts, stsSdk)),
      fact(async () => {
        const targets: DescribedMountTarget[] = [];
        let ownerId: string | undefined;
        for await (const page of efsSdk.paginateDescribeMountTargets({ client: efs }, { FileSystemId: fileSystemId })) {
          for (const t of page.MountTargets ?? []) {
            ownerId ??= t.OwnerId;
            targets.push({ id: t.MountTargetId!, availabilityZone: t.AvailabilityZoneName ?? '?', lifeCycleState: t.LifeCycleState ?? '?', ipv4: t.IpAddress || undefined, ipv6: t.Ipv6Address || undefined });
          }
        }
        return { ownerId, targets };
      }),
      fact(async () => {
        try {
          const out = await efs.send(new efsSdk.DescribeFileSystemPolicyCommand({ FileSystemId: fileSystemId }));
          return JSON.parse(out.Policy ?? 'null') as PolicyDocument | null;
        } catch (err) {
          if ((err as Error).name === 'PolicyNotFound') return null;
          throw err;
        }
      }),
      accessPointId === undefined ? undefined : fact(async (): Promise<AccessPointFacts> => {
        const out = await efs.send(new efsSdk.DescribeAccessPointsCommand({ AccessPointId: accessPointId }));
        const ap = out.AccessPoints?.[0];
        if (!ap) throw new Error(`no access point ${accessPointId}`);
        const creation = ap.RootDirectory?.CreationInfo;
        return {
          id: ap.AccessPointId!,
          arn: ap.AccessPointArn!,
          fileSystemId: ap.FileSystemId!,
          lifeCycleState: ap.LifeCycleState ?? '?',
          posixUser: ap.PosixUser ? { uid: ap.PosixUser.Uid!, gid: ap.PosixUser.Gid!, secondaryGids: ap.PosixUser.SecondaryGids ?? [] } : undefined,
          rootPath: ap.RootDirectory?.Path ?? '/',
          rootCreationInfo: creation ? { uid: creation.OwnerUid!, gid: creation.OwnerGid!, mode: parseInt(creation.Permissions!, 8) } : undefined,
        };
      }),
    ]);
    const identityPolicies: Fact<PolicyDocument[] | 'account-root'> = 'value' in caller
      ? await fact(() => policiesOf(iam, iamSdk, caller.value.arn))
      : { problem: `unknown caller (${caller.problem})` };
    return { caller, mountTargets, fileSystemPolicy, accessPoint, identityPolicies };
  } finally {
    efs.destroy();
    sts.destroy();
    iam.destroy();
  }
}

/** What the doctor cannot read for an S3 Files file system. */
export const NO_S3FILES_CLIENT = 'not read: that takes the S3 Files API (ListMountTargets, GetFileSystemPolicy, GetAccessPoint), and this build has no client for it (@aws-sdk/client-s3files is not a dependency)';

/**
 * For an S3 Files file system: who the caller is and the caller's own IAM policies (STS and IAM);
 * the mount targets, the file system policy and the access point are S3 Files API calls, for which
 * this build has no client, so they are facts with that problem.
 */
export async function readS3FilesAwsFacts(target: AwsTarget): Promise<AwsFacts> {
  quiet();
  const [stsSdk, iamSdk] = await Promise.all([import('@aws-sdk/client-sts'), import('@aws-sdk/client-iam')]);
  const sts = new stsSdk.STSClient(clientConfig(target));
  const iam = new iamSdk.IAMClient(clientConfig(target));
  try {
    const caller = await fact(() => callerOf(sts, stsSdk));
    const identityPolicies: Fact<PolicyDocument[] | 'account-root'> = 'value' in caller
      ? await fact(() => policiesOf(iam, iamSdk, caller.value.arn))
      : { problem: `unknown caller (${caller.problem})` };
    return { caller, identityPolicies, mountTargets: { problem: NO_S3FILES_CLIENT }, fileSystemPolicy: { problem: NO_S3FILES_CLIENT } };
  } finally {
    sts.destroy();
    iam.destroy();
  }
}

type IamSdk = typeof import('@aws-sdk/client-iam');
type StsSdk = typeof import('@aws-sdk/client-sts');

async function callerOf(sts: InstanceType<StsSdk['STSClient']>, sdk: StsSdk): Promise<Caller> {
  const who = await sts.send(new sdk.GetCallerIdentityCommand({}));
  return { arn: who.Arn!, account: who.Account! };
}

/**
 * The caller's own policies: a role's (for an assumed-role session), or a user's with its groups',
 * inline and attached. Permissions boundaries and organization SCPs are not read.
 */
async function policiesOf(iam: IAMClient, sdk: IamSdk, arn: string): Promise<PolicyDocument[] | 'account-root'> {
  if (/^arn:[^:]+:iam::\d{12}:root$/.test(arn)) return 'account-root';
  const role = /^arn:[^:]+:sts::\d{12}:assumed-role\/([^/]+)\//.exec(arn);
  if (role) {
    const RoleName = role[1];
    const inline = await names(sdk.paginateListRolePolicies({ client: iam }, { RoleName }), (p) => p.PolicyNames);
    const attached = await names(sdk.paginateListAttachedRolePolicies({ client: iam }, { RoleName }), (p) => p.AttachedPolicies?.map((a) => a.PolicyArn!));
    return [
      ...await Promise.all(inline.map(async (PolicyName) => parseDocument((await iam.send(new sdk.GetRolePolicyCommand({ RoleName, PolicyName }))).PolicyDocument))),
      ...await Promise.all(attached.map((policyArn) => managedDocument(iam, sdk, policyArn))),
    ];
  }
  const user = /^arn:[^:]+:iam::\d{12}:user\/(?:.*\/)?([^/]+)$/.exec(arn);
  if (user) {
    const UserName = user[1];
    const inline = await names(sdk.paginateListUserPolicies({ client: iam }, { UserName }), (p) => p.PolicyNames);
    const attached = await names(sdk.paginateListAttachedUserPolicies({ client: iam }, { UserName }), (p) => p.AttachedPolicies?.map((a) => a.PolicyArn!));
    const groups = await names(sdk.paginateListGroupsForUser({ client: iam }, { UserName }), (p) => p.Groups?.map((g) => g.GroupName!));
    const documents = [
      ...await Promise.all(inline.map(async (PolicyName) => parseDocument((await iam.send(new sdk.GetUserPolicyCommand({ UserName, PolicyName }))).PolicyDocument))),
      ...await Promise.all(attached.map((policyArn) => managedDocument(iam, sdk, policyArn))),
    ];
    for (const GroupName of groups) {
      const groupInline = await names(sdk.paginateListGroupPolicies({ client: iam }, { GroupName }), (p) => p.PolicyNames);
      const groupAttached = await names(sdk.paginateListAttachedGroupPolicies({ client: iam }, { GroupName }), (p) => p.AttachedPolicies?.map((a) => a.PolicyArn!));
      documents.push(
        ...await Promise.all(groupInline.map(async (PolicyName) => parseDocument((await iam.send(new sdk.GetGroupPolicyCommand({ GroupName, PolicyName }))).PolicyDocument))),
        ...await Promise.all(groupAttached.map((policyArn) => managedDocument(iam, sdk, policyArn))),
      );
    }
    return documents;
  }
  throw new Error(`reading the policies of ${arn} is not supported (roles and users only)`);
}

async function names<P>(pages: AsyncIterable<P>, pick: (page: P) => string[] | undefined): Promise<string[]> {
  const out: string[] = [];
  for await (const page of pages) out.push(...(pick(page) ?? []));
  return out;
}

async function managedDocument(iam: IAMClient, sdk: IamSdk, PolicyArn: string): Promise<PolicyDocument> {
  const policy = await iam.send(new sdk.GetPolicyCommand({ PolicyArn }));
  const version = await iam.send(new sdk.GetPolicyVersionCommand({ PolicyArn, VersionId: policy.Policy!.DefaultVersionId! }));
  return parseDocument(version.PolicyVersion!.Document);
}

/** IAM returns policy documents URL-encoded (RFC 3986). */
function parseDocument(document: string | undefined): PolicyDocument {
  const text = document ?? '{"Statement":[]}';
  return JSON.parse(text.trimStart().startsWith('{') ? text : decodeURIComponent(text));
}
