/**
 * IAM policy evaluation, as much of it as deciding an NFS client's access to EFS needs (IAM User
 * Guide, "Policy evaluation logic" and "IAM JSON policy elements"): Effect, Principal, Action /
 * NotAction, Resource / NotResource, and Condition with the string, ARN, Bool and Null operators
 * (IfExists, ForAnyValue:, ForAllValues:) on the keys a mount has. Anything else (NotPrincipal,
 * numeric or IP conditions, keys the caller did not give) makes a statement "unknown", never a
 * guess: the decision then says which part could not be evaluated.
 */

export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: PolicyStatement | PolicyStatement[];
}

export interface PolicyStatement {
  readonly Sid?: string;
  readonly Effect: string;
  readonly Principal?: unknown;
  readonly NotPrincipal?: unknown;
  readonly Action?: string | string[];
  readonly NotAction?: string | string[];
  readonly Resource?: string | string[];
  readonly NotResource?: string | string[];
  readonly Condition?: Record<string, Record<string, unknown>>;
}

/** Who calls, as STS names it (`arn:aws:sts::1:assumed-role/Name/session`, `arn:aws:iam::1:user/x`). */
export interface Caller {
  readonly arn: string;
  readonly account: string;
}

export interface RequestContext {
  readonly action: string;
  readonly resource: string;
  /** Undefined: an anonymous client (a mount without IAM). */
  readonly caller?: Caller;
  /** The condition keys this request has: a value, or undefined for a key the request lacks. Keys not listed are unknown. */
  readonly keys: Record<string, string | undefined>;
}

type Match = 'yes' | 'no' | 'unknown';

export interface Evaluation {
  readonly decision: 'allow' | 'deny' | 'implicit-deny' | 'unknown';
  /** The statements that decided (Sid, or #index). */
  readonly statements: string[];
  /** What could not be evaluated, in words. */
  readonly unknown: string[];
  /** The allow came only from statements that name the caller's account, not the caller: IAM also needs an identity policy that allows. */
  readonly accountPrincipalOnly: boolean;
}

export type PolicyKind = 'resource' | 'identity';

export function evaluatePolicies(documents: PolicyDocument[], request: RequestContext, kind: PolicyKind): Evaluation {
  const matches = documents.flatMap((doc) => statementsOf(doc)).map((s, i) => ({ s, name: s.Sid || `#${i + 1}`, ...matchStatement(s, request, kind) }));
  const unknown = matches.filter((m) => m.match === 'unknown').map((m) => `statement ${m.name}: ${m.why}`);
  const denies = matches.filter((m) => m.s.Effect === 'Deny');
  const allows = matches.filter((m) => m.s.Effect === 'Allow');
  const denied = denies.filter((m) => m.match === 'yes');
  if (denied.length) return { decision: 'deny', statements: denied.map((m) => m.name), unknown, accountPrincipalOnly: false };
  const allowed = allows.filter((m) => m.match === 'yes');
  const undecided = denies.some((m) => m.match === 'unknown') || (allowed.length === 0 && allows.some((m) => m.match === 'unknown'));
  if (undecided) return { decision: 'unknown', statements: [], unknown, accountPrincipalOnly: false };
  if (allowed.length) {
    return { decision: 'allow', statements: allowed.map((m) => m.name), unknown, accountPrincipalOnly: allowed.every((m) => m.accountPrincipal) };
  }
  return { decision: 'implicit-deny', statements: [], unknown, accountPrincipalOnly: false };
}

function statementsOf(doc: PolicyDocument): PolicyStatement[] {
  return Array.isArray(doc.Statement) ? doc.Statement : [doc.Statement];
}

interface StatementMatch {
  readonly match: Match;
  readonly why?: string;
  readonly accountPrincipal?: boolean;
}

function matchStatement(s: PolicyStatement, request: RequestContext, kind: PolicyKind): StatementMatch {
  let principal: StatementMatch = { match: 'yes' };
  if (kind === 'resource') {
    if (s.NotPrincipal !== undefined) return { match: 'unknown', why: 'NotPrincipal is not evaluated' };
    principal = matchPrincipal(s.Principal, request.caller);
  }
  const action = s.Action !== undefined ? anyGlob(s.Action, request.action, true) : !anyGlob(s.NotAction ?? [], request.action, true);
  const resource = s.Resource !== undefined ? anyGlob(s.Resource, request.resource, false) : s.NotResource !== undefined ? !anyGlob(s.NotResource, request.resource, false) : true;
  if (principal.match === 'no' || !action || !resource) return { match: 'no' };
  const condition = matchConditions(s.Condition ?? {}, request.keys);
  if (condition.match === 'no') return { match: 'no' };
  const match: Match = principal.match === 'unknown' || condition.match === 'unknown' ? 'unknown' : 'yes';
  return { match, why: principal.why ?? condition.why, accountPrincipal: principal.accountPrincipal };
}

const asList = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)]);

function anyGlob(patterns: string | string[], value: string, ignoreCase: boolean): boolean {
  return asList(patterns).some((p) => globMatches(p, value, ignoreCase));
}

function globMatches(pattern: string, value: string, ignoreCase: boolean): boolean {
  const source = pattern.split('').map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`, ignoreCase ? 'is' : 's').test(value);
}

/**
 * A resource policy's Principal against the caller. An account (`123456789012`,
 * `arn:aws:iam::123456789012:root`) matches its every identity but only delegates: IAM then also
 * wants an identity policy that allows.
 */
function matchPrincipal(principal: unknown, caller: Caller | undefined): StatementMatch {
  if (principal === '*') return { match: 'yes' };
  if (typeof principal !== 'object' || principal === null) return { match: 'no' };
  const aws = asList((principal as Record<string, unknown>).AWS);
  if (aws.includes('*')) return { match: 'yes' };
  if (!caller) return { match: 'no' };
  if (aws.some((p) => samePrincipal(p, caller))) return { match: 'yes' };
  if (aws.some((p) => p === caller.account || p === `arn:${partitionOfArn(caller.arn)}:iam::${caller.account}:root`)) {
    return { match: 'yes', accountPrincipal: true };
  }
  return { match: 'no' };
}

const partitionOfArn = (arn: string) => arn.split(':')[1] ?? 'aws';

/** A principal ARN names the caller: itself, or the role whose session the caller is (role paths are not in session ARNs). */
function samePrincipal(principal: string, caller: Caller): boolean {
  if (principal === caller.arn) return true;
  const session = /^arn:([^:]+):sts::(\d{12}):assumed-role\/([^/]+)\//.exec(caller.arn);
  const role = /^arn:([^:]+):iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/.exec(principal);
  return !!session && !!role && session[1] === role[1] && session[2] === role[2] && session[3] === role[3];
}

const NEGATED = new Set(['StringNotEquals', 'StringNotEqualsIgnoreCase', 'StringNotLike', 'ArnNotEquals', 'ArnNotLike']);
const COMPARE: Record<string, (actual: string, wanted: string) => boolean> = {
  StringEquals: (a, w) => a === w,
  StringNotEquals: (a, w) => a === w,
  StringEqualsIgnoreCase: (a, w) => a.toLowerCase() === w.toLowerCase(),
  StringNotEqualsIgnoreCase: (a, w) => a.toLowerCase() === w.toLowerCase(),
  StringLike: (a, w) => globMatches(w, a, false),
  StringNotLike: (a, w) => globMatches(w, a, false),
  ArnEquals: (a, w) => globMatches(w, a, false),
  ArnLike: (a, w) => globMatches(w, a, false),
  ArnNotEquals: (a, w) => globMatches(w, a, false),
  ArnNotLike: (a, w) => globMatches(w, a, false),
  Bool: (a, w) => a.toLowerCase() === w.toLowerCase(),
};

/** Every operator and every key must hold; a key holds when its value matches one of the listed (none, for the Not operators). */
function matchConditions(conditions: Record<string, Record<string, unknown>>, keys: Record<string, string | undefined>): { match: Match; why?: string } {
  const known = new Map(Object.entries(keys).map(([k, v]) => [k.toLowerCase(), v]));
  let result: { match: Match; why?: string } = { match: 'yes' };
  for (const [rawOperator, entries] of Object.entries(conditions)) {
    const forAll = rawOperator.startsWith('ForAllValues:');
    const withoutSet = rawOperator.replace(/^For(Any|All)Values:/, '');
    const ifExists = withoutSet.endsWith('IfExists');
    const operator = withoutSet.replace(/IfExists$/, '');
    for (const [key, wanted] of Object.entries(entries ?? {})) {
      if (!known.has(key.toLowerCase())) {
        result = { match: 'unknown', why: `condition key ${key} is not one this check knows the value of` };
        continue;
      }
      const actual = known.get(key.toLowerCase());
      let holds: boolean;
      if (operator === 'Null') {
        holds = asList(wanted).some((w) => (w.toLowerCase() === 'true') === (actual === undefined));
      } else if (!COMPARE[operator]) {
        result = { match: 'unknown', why: `condition operator ${rawOperator} is not evaluated` };
        continue;
      } else if (actual === undefined) {
        holds = ifExists || forAll || NEGATED.has(operator);
      } else {
        const any = asList(wanted).some((w) => COMPARE[operator](actual, w));
        holds = NEGATED.has(operator) ? !any : any;
      }
      if (!holds) return { match: 'no' };
    }
  }
  return result;
}
