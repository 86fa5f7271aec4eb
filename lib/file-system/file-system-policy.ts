import { Annotations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { IConstruct } from 'constructs';
import { basePolicy, FileSystemSettings, SECURE_DEFAULT_SIDS } from './shared-file-system-settings';
import { ValidationError } from '../core/validation-error';

/**
 * A SharedFileSystem's file system policy: the secure defaults first, then the statements of the
 * `fileSystemPolicy` prop. An explicit Deny wins over any Allow in IAM, so no added statement can
 * lift the TLS deny; what an added statement can do is mean to (an Allow for requests without
 * TLS, which either never takes effect or, with `enforceTls: false`, lets plain NFS in) or open the
 * file system to every principal, anonymous NFS clients included. Both warn at synth.
 */


export function fileSystemPolicyOf(scope: IConstruct, settings: FileSystemSettings, extra?: iam.PolicyDocument): iam.PolicyDocument {
  const policy = basePolicy(settings);
  if (!extra || extra.isEmpty) return policy;
  const statements: any[] = extra.toJSON().Statement;
  statements.forEach((statement, index) => {
    checkStatement(scope, statement, `SharedFileSystem(${scope.node.path}): fileSystemPolicy statement ${statement.Sid ?? index}`, settings);
    policy.addStatements(iam.PolicyStatement.fromJson(statement));
  });
  return policy;
}

function checkStatement(scope: IConstruct, statement: any, where: string, settings: FileSystemSettings): void {
  // EFS takes a statement without Resource (it is the file system), but not one without a principal.
  if (statement.Principal === undefined && statement.NotPrincipal === undefined) {
    throw new ValidationError(`${where}: a file system policy statement needs a principal (Principal or NotPrincipal), got none.`, scope);
  }
  if (SECURE_DEFAULT_SIDS.includes(statement.Sid)) {
    throw new ValidationError(`${where}: Sid ${statement.Sid} is the secure defaults' own; choose another, got ${JSON.stringify(statement.Sid)}.`, scope);
  }
  if ((statement.Effect ?? 'Allow') !== 'Allow') return;
  const warn = (id: string, message: string) => Annotations.of(scope).addWarningV2(`cdk-efs-kit:${id}`, `${where}: ${message}`);
  if (allowsWithoutTls(statement)) {
    warn('policyAllowsWithoutTls', settings.tlsEnforced
      ? 'allows requests without TLS (aws:SecureTransport false); it never takes effect, because the TLS deny (enforceTls) wins over any Allow.'
      : 'allows requests without TLS (aws:SecureTransport false), and enforceTls is false: clients in reach of a mount target can mount without encryption in transit.');
  }
  if (isForEveryone(statement) && !settings.anonymousAccessAllowed) {
    warn('policyAllowsAnyone', 'allows every principal (Principal "*" or NotPrincipal), anonymous NFS clients included, although allowAnonymousAccess is false; name the principals instead.');
  }
}

/** An Allow conditioned on `aws:SecureTransport` false (keys are case-insensitive in IAM). */
function allowsWithoutTls(statement: any): boolean {
  for (const [operator, keys] of Object.entries<Record<string, unknown>>(statement.Condition ?? {})) {
    if (!/^Bool(IfExists)?$/i.test(operator)) continue;
    for (const [key, value] of Object.entries(keys)) {
      const values = Array.isArray(value) ? value : [value];
      if (key.toLowerCase() === 'aws:securetransport' && values.some((v) => String(v).toLowerCase() === 'false')) return true;
    }
  }
  return false;
}

function isForEveryone(statement: any): boolean {
  if (statement.NotPrincipal !== undefined) return true;
  const principal = statement.Principal;
  if (principal === '*') return true;
  const aws = principal?.AWS;
  return (Array.isArray(aws) ? aws : [aws]).includes('*');
}
