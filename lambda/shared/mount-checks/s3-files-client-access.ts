import { CheckResult, fail, pass, warn } from './check-result';
import { Caller, evaluatePolicies, Evaluation, PolicyDocument, RequestContext } from './iam-policy';

/**
 * Whether a client may mount and write an S3 Files file system, as far as its own IAM policies
 * tell (S3 User Guide, "How S3 Files works with IAM"): every mount signs with IAM and TLS (neither
 * can be turned off), and an allow of s3files:ClientMount / ClientWrite in either the identity's
 * policies or the file system policy suffices, unless one of them denies. The file system policy
 * is not read here (that is S3 Files' GetFileSystemPolicy, and this build has no S3 Files client),
 * so an identity that does not allow a mount is a warning naming that policy, never a verdict.
 * Condition keys known: aws:SecureTransport (always true), aws:PrincipalAccount and
 * s3files:AccessPointArn.
 */

export const S3FILES_CLIENT_MOUNT = 's3files:ClientMount';
export const S3FILES_CLIENT_WRITE = 's3files:ClientWrite';
export const S3FILES_POLICY_CHECK = 'file-system-policy';

export interface S3FilesClientAccessInput {
  readonly fileSystemArn: string;
  readonly caller: Caller;
  /** The caller's policies, 'account-root', or why they could not be read. */
  readonly identityPolicies: PolicyDocument[] | 'account-root' | { readonly problem: string };
  readonly accessPointArn?: string;
}

export function s3FilesClientAccessCheck(input: S3FilesClientAccessInput): CheckResult {
  const who = `${input.caller.arn}${input.accessPointArn ? ` through ${input.accessPointArn}` : ''}`;
  const grant = `allow ${S3FILES_CLIENT_MOUNT} and ${S3FILES_CLIENT_WRITE} on ${input.fileSystemArn} to ${input.caller.arn} (its role's policy, e.g. the AmazonS3FilesClientFullAccess managed policy, or the file system policy)`;
  const policies = input.identityPolicies;
  if (!Array.isArray(policies) && policies !== 'account-root') {
    return warn(S3FILES_POLICY_CHECK, `${who}: could not read the identity's own policies (${policies.problem}), and the file system policy is not read (no S3 Files API client here)`,
      `check by hand (or with the IAM policy simulator) that ${S3FILES_CLIENT_MOUNT} and ${S3FILES_CLIENT_WRITE} are allowed on ${input.fileSystemArn}`);
  }
  const decide = (action: string): Evaluation => {
    if (policies === 'account-root') return { decision: 'allow', statements: ['the account root user'], unknown: [], accountPrincipalOnly: false };
    const request: RequestContext = {
      action,
      resource: input.fileSystemArn,
      caller: input.caller,
      keys: { 'aws:SecureTransport': 'true', 'aws:PrincipalAccount': input.caller.account, 's3files:AccessPointArn': input.accessPointArn },
    };
    return evaluatePolicies(policies, request, 'identity');
  };
  const mount = decide(S3FILES_CLIENT_MOUNT);
  const write = decide(S3FILES_CLIENT_WRITE);
  const named = (e: Evaluation) => `statement ${e.statements.join(', ')}`;
  const notRead = 'the file system policy is not read here (no S3 Files API client)';
  if (mount.decision === 'deny') return fail(S3FILES_POLICY_CHECK, `${who}: the identity's own policies deny ClientMount (${named(mount)}): the mount fails with access denied`, `remove the statement that denies ${S3FILES_CLIENT_MOUNT}`);
  if (mount.decision === 'unknown' || write.decision === 'unknown') {
    return warn(S3FILES_POLICY_CHECK, `${who}: could not decide: ${[...mount.unknown, ...write.unknown].join('; ')}`, 'check the statements named above by hand (or with the IAM policy simulator)');
  }
  if (mount.decision === 'implicit-deny') {
    return warn(S3FILES_POLICY_CHECK, `${who}: the identity's own policies do not allow ${S3FILES_CLIENT_MOUNT}, and ${notRead}: unless that policy allows it to this identity, the mount fails with access denied (S3 Files checks IAM on every mount)`, grant);
  }
  if (write.decision !== 'allow') {
    return warn(S3FILES_POLICY_CHECK, `${who}: ClientMount allowed (${named(mount)}), but the identity's policies ${write.decision === 'deny' ? `deny ClientWrite (${named(write)})` : 'do not allow ClientWrite'}: the mount is read-only${write.decision === 'deny' ? '' : ` unless the file system policy allows it (${notRead})`}`, grant);
  }
  return pass(S3FILES_POLICY_CHECK, `${who}: ClientMount and ClientWrite allowed by the identity's own policies (${named(mount)}${named(write) === named(mount) ? '' : `; ${named(write)}`}); ${notRead}, and it can only deny more`);
}
