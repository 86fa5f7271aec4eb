import { CheckResult, fail, pass, warn } from './check-result';
import { Caller, evaluatePolicies, Evaluation, PolicyDocument, RequestContext } from './iam-policy';

/**
 * Whether a client may mount and write, as EFS decides it (EFS User Guide, "Using IAM to control
 * file system data access"):
 * - no file system policy: EFS's default grants every client that reaches a mount target full
 *   access (ClientMount, ClientWrite, ClientRootAccess);
 * - a mount without IAM is anonymous: only statements for the principal "*" can allow it;
 * - a mount with IAM (`-o tls,iam`) is allowed when the file system policy or the identity's own
 *   policies allow (both, across accounts), and nothing denies;
 * - conditions see aws:SecureTransport (TLS), elasticfilesystem:AccessPointArn and
 *   elasticfilesystem:AccessedViaMountTarget.
 * Root (uid 0) without ClientRootAccess is squashed to uid 65534 by EFS.
 */

export const CLIENT_MOUNT = 'elasticfilesystem:ClientMount';
export const CLIENT_WRITE = 'elasticfilesystem:ClientWrite';
export const CLIENT_ROOT_ACCESS = 'elasticfilesystem:ClientRootAccess';
export const POLICY_CHECK = 'file-system-policy';

export interface ClientAccessInput {
  readonly fileSystemArn: string;
  readonly fileSystemAccount: string;
  /** Null when the file system has no policy. */
  readonly fileSystemPolicy: PolicyDocument | null;
  /** The caller's identity policies; 'account-root' for the account's root user; undefined when they could not be read. */
  readonly identityPolicies?: PolicyDocument[] | 'account-root';
  /** The IAM identity the mount signs as; undefined for a mount without IAM. */
  readonly caller?: Caller;
  readonly tls: boolean;
  readonly accessPointArn?: string;
}

export interface AccessDecision {
  readonly allowed: 'yes' | 'no' | 'unknown';
  readonly why: string;
}

export function decideClientAccess(input: ClientAccessInput, action: string): AccessDecision {
  const short = action.split(':')[1];
  if (input.fileSystemPolicy === null) return { allowed: 'yes', why: 'no file system policy: EFS\'s default allows every client that reaches a mount target' };
  const request: RequestContext = {
    action,
    resource: input.fileSystemArn,
    caller: input.caller,
    keys: {
      'aws:SecureTransport': String(input.tls),
      'elasticfilesystem:AccessPointArn': input.accessPointArn,
      'elasticfilesystem:AccessedViaMountTarget': 'true',
      'aws:PrincipalAccount': input.caller?.account,
    },
  };
  const resource = evaluatePolicies([input.fileSystemPolicy], request, 'resource');
  if (resource.decision === 'deny') return { allowed: 'no', why: `the file system policy denies ${short} (${statements(resource)})` };
  if (!input.caller) {
    if (resource.decision === 'allow' && !resource.accountPrincipalOnly) return { allowed: 'yes', why: `the file system policy allows ${short} to any client (${statements(resource)})` };
    if (resource.decision === 'unknown') return { allowed: 'unknown', why: undecided(resource) };
    return { allowed: 'no', why: `the file system policy allows ${short} only to IAM identities, and a mount without -o iam is anonymous` };
  }
  const crossAccount = input.caller.account !== input.fileSystemAccount;
  const resourceAllows = resource.decision === 'allow' && !resource.accountPrincipalOnly;
  const identity = identityDecision(input.identityPolicies, request);
  if (identity?.decision === 'deny') return { allowed: 'no', why: `the identity's own policies deny ${short} (${statements(identity)})` };
  const identityAllows = identity?.decision === 'allow';
  if (crossAccount ? resourceAllows && identityAllows : resourceAllows || identityAllows) {
    const by = [resourceAllows ? `the file system policy (${statements(resource)})` : '', identityAllows ? `the identity's policies (${statements(identity!)})` : ''].filter(Boolean).join(' and ');
    return { allowed: 'yes', why: `${short} is allowed by ${by}` };
  }
  if (resource.decision === 'unknown' || identity === undefined || identity.decision === 'unknown') {
    const parts = [resource.decision === 'unknown' ? undecided(resource) : '', identity === undefined ? 'the identity\'s own policies could not be read' : identity.decision === 'unknown' ? undecided(identity) : ''];
    return { allowed: 'unknown', why: parts.filter(Boolean).join('; ') };
  }
  const needs = crossAccount ? 'across accounts both the file system policy and the identity\'s policies must allow' : 'neither the file system policy nor the identity\'s policies allow it';
  return { allowed: 'no', why: `${short} is not allowed: ${needs}` };
}

function identityDecision(policies: ClientAccessInput['identityPolicies'], request: RequestContext): Evaluation | undefined {
  if (policies === 'account-root') return { decision: 'allow', statements: ['the account root user'], unknown: [], accountPrincipalOnly: false };
  return policies === undefined ? undefined : evaluatePolicies(policies, request, 'identity');
}

const statements = (e: Evaluation) => `statement ${e.statements.join(', ')}`;
const undecided = (e: Evaluation) => `could not decide: ${e.unknown.join('; ')}`;

/** ClientMount, ClientWrite and, for root, ClientRootAccess as one check. */
export function clientAccessCheck(input: ClientAccessInput, how: string, asRoot: boolean): CheckResult {
  const mount = decideClientAccess(input, CLIENT_MOUNT);
  const write = decideClientAccess(input, CLIENT_WRITE);
  const who = input.caller ? `${input.caller.arn} ${how}` : `an anonymous client ${how}`;
  const grantFix = input.caller
    ? `allow ${CLIENT_MOUNT} and ${CLIENT_WRITE} on ${input.fileSystemArn} to ${input.caller.arn} (its role's policy, or the file system policy), or remove the statement that denies`
    : `mount with -o tls,iam as an identity the policy allows (mount -t efs), or allow the actions to principal "*"`;
  if (mount.allowed === 'no') return fail(POLICY_CHECK, `${who}: ClientMount denied: ${mount.why}`, grantFix);
  if (mount.allowed === 'unknown' || write.allowed === 'unknown') {
    return warn(POLICY_CHECK, `${who}: ${mount.allowed === 'unknown' ? mount.why : write.why}`, 'check the statements named above by hand (or with the IAM policy simulator)');
  }
  if (write.allowed === 'no') return warn(POLICY_CHECK, `${who}: mounts read-only, ClientWrite denied: ${write.why}`, grantFix);
  if (asRoot) {
    const root = decideClientAccess(input, CLIENT_ROOT_ACCESS);
    if (root.allowed === 'no') {
      return warn(POLICY_CHECK, `${who}: mount and write allowed, but ClientRootAccess is not (${root.why}): EFS squashes root to uid 65534, so root-owned files are out of reach`,
        `run as the owner of the files, or allow ${CLIENT_ROOT_ACCESS} on ${input.fileSystemArn}`);
    }
  }
  return pass(POLICY_CHECK, `${who}: ClientMount and ClientWrite allowed (${mount.why}${write.why === mount.why ? '' : `; ${write.why}`})`);
}
