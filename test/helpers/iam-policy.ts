import { Template } from 'aws-cdk-lib/assertions';

/**
 * Just enough of IAM's policy evaluation to ask whether a synthesized role may make a request: an
 * explicit Deny wins, then any Allow, else the request is not allowed. Conditions follow the IAM
 * User Guide's rules for keys absent from the request ("If the key that you specify in a policy
 * condition is not present in the request context, the values do not match and the condition is
 * false. If the policy condition requires that the key is not matched, such as StringNotLike ...,
 * and the right key is not present, the condition is true", except ...IfExists and Null;
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html).
 * Only the operators our policies use are known: anything else fails the test rather than guess.
 */
export interface Request {
  readonly action: string;
  readonly resource: string;
  /** Condition keys present in the request; a key that is absent is left out. */
  readonly context: Record<string, string>;
}

export type Decision = 'allowed' | 'denied' | 'not allowed';

interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

export function decide(statements: Statement[], request: Request): Decision {
  const applies = (s: Statement) => list(s.Action).some((a) => wildcard(a.toLowerCase(), request.action.toLowerCase()))
    && list(s.Resource).some((r) => wildcard(r, request.resource))
    && Object.entries(s.Condition ?? {}).every(([operator, keys]) => Object.entries(keys).every(([key, values]) => holds(operator, request.context[key], list(values))));
  if (statements.some((s) => s.Effect === 'Deny' && applies(s))) return 'denied';
  return statements.some((s) => s.Effect === 'Allow' && applies(s)) ? 'allowed' : 'not allowed';
}

function holds(operator: string, value: string | undefined, values: string[]): boolean {
  if (operator === 'Null') return values.some((v) => (v === 'true') === (value === undefined));
  const ifExists = operator.endsWith('IfExists');
  const base = ifExists ? operator.slice(0, -'IfExists'.length) : operator;
  const negated = base.includes('Not');
  if (value === undefined) return ifExists || negated;
  const match: Record<string, (pattern: string) => boolean> = {
    StringEquals: (p) => p === value, StringNotEquals: (p) => p === value,
    StringLike: (p) => wildcard(p, value), StringNotLike: (p) => wildcard(p, value),
    Bool: (p) => p === value,
  };
  if (!match[base]) throw new Error(`the IAM evaluator does not know the condition operator ${operator}`);
  const any = values.some(match[base]);
  return negated ? !any : any;
}

function wildcard(pattern: string, value: string): boolean {
  const regex = pattern.split('*').map((part) => part.split('?').map((p) => p.replace(/[.+^${}()|[\]\\]/g, '\\$&')).join('.')).join('.*');
  return new RegExp(`^${regex}$`, 's').test(value);
}

const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/**
 * The statements of every AWS::IAM::Policy attached to `roleId`, with tokens resolved: `Ref`s and
 * `Fn::GetAtt`s by `names` (logical id -> ARN or name; `Logical.Attribute` for an attribute that is
 * not the one the logical id gives), pseudo parameters as in us-east-1.
 */
export function statementsOf(template: Template, roleId: string, names: Record<string, string>): Statement[] {
  const policies = Object.values<any>(template.findResources('AWS::IAM::Policy')).filter((p) => JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`));
  return policies.flatMap((p) => resolve(p.Properties.PolicyDocument.Statement, names));
}

const PSEUDO: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': 'us-east-1', 'AWS::AccountId': '123456789012', 'AWS::URLSuffix': 'amazonaws.com' };

function resolve(value: any, names: Record<string, string>): any {
  if (Array.isArray(value)) return value.map((v) => resolve(v, names));
  if (value === null || typeof value !== 'object') return value;
  if ('Ref' in value) return PSEUDO[value.Ref] ?? names[value.Ref] ?? `unresolved:${value.Ref}`;
  if ('Fn::GetAtt' in value) return names[value['Fn::GetAtt'].join('.')] ?? names[value['Fn::GetAtt'][0]] ?? `unresolved:${value['Fn::GetAtt'].join('.')}`;
  if ('Fn::Join' in value) return resolve(value['Fn::Join'][1], names).join(value['Fn::Join'][0]);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, names)]));
}

/** The logical id of the role a resource runs as (its `Role` or `RoleArn`, a GetAtt of the role's Arn). */
export function roleOf(resource: any): string {
  return (resource.Properties.Role ?? resource.Properties.RoleArn)['Fn::GetAtt'][0];
}
