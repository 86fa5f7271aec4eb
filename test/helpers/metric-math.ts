/**
 * A small evaluator for the CloudWatch metric math this library writes (arithmetic, comparisons,
 * PERIOD, RATE, DIFF, ABS, FILL, IF, MAX of a list), over series of datapoints at one period, and an alarm's verdict over
 * them. Tests feed it the expressions and thresholds read from the synthesized template, so an
 * expression or a threshold that can never fire fails a test. Semantics follow the CloudWatch
 * metric math reference: missing datapoints are NaN and propagate; RATE is the change per second
 * from the previous datapoint.
 */
export type Series = number[];
type Value = Series | number | Value[];

interface Env {
  series: Record<string, Series>;
  periods: Record<string, number>;
}

const FUNCTIONS = new Set(['PERIOD', 'RATE', 'DIFF', 'ABS', 'FILL', 'IF', 'MAX']);

/** The metric ids an expression reads; none for a SEARCH, which finds its metrics by itself. */
export function referencedIds(expression: string): string[] {
  if (expression.startsWith('SEARCH(')) return [];
  return [...new Set(tokenize(expression).filter((t) => /^[a-z_][A-Za-z0-9_]*$/.test(t) && !FUNCTIONS.has(t)))];
}

export function evaluate(expression: string, env: Env, length: number): Series {
  const tokens = tokenize(expression);
  let pos = 0;
  const peek = () => tokens[pos];
  const take = (expected?: string) => {
    const t = tokens[pos++];
    if (expected !== undefined && t !== expected) throw new Error(`expected ${expected} at ${pos} in ${expression}, got ${t}`);
    return t;
  };
  const binary = (next: () => Value, ops: string[]) => (): Value => {
    let left = next();
    while (ops.includes(peek())) {
      const op = take();
      left = zip(left, next(), (a, b) => apply(op, a, b));
    }
    return left;
  };
  const primary = (): Value => {
    const t = take();
    if (t === '(') { const v = comparison(); take(')'); return v; }
    if (t === '[') {
      const list: Value[] = [comparison()];
      while (peek() === ',') { take(); list.push(comparison()); }
      take(']');
      return list;
    }
    if (t === '-') return zip(0, primary(), (a, b) => a - b);
    if (/^\d/.test(t)) return Number(t);
    if (FUNCTIONS.has(t)) {
      take('(');
      const args: Value[] = [];
      const argTokens: string[] = [];
      for (;;) {
        argTokens.push(peek());
        args.push(comparison());
        if (peek() === ',') { take(); continue; }
        take(')');
        break;
      }
      return call(t, args, argTokens);
    }
    if (!(t in env.series)) throw new Error(`unknown id ${t} in ${expression}`);
    return env.series[t];
  };
  const call = (name: string, args: Value[], argTokens: string[]): Value => {
    switch (name) {
      case 'PERIOD': return env.periods[argTokens[0]];
      case 'ABS': return zip(args[0], 0, (a) => Math.abs(a));
      // MAX of a list of series: at each datapoint the largest value present.
      case 'MAX': return Array.from({ length }, (_, i) => {
        const present = (args[0] as Value[]).map((v) => at(v, i)).filter((v) => !Number.isNaN(v));
        return present.length ? Math.max(...present) : NaN;
      });
      case 'FILL': return zip(args[0], args[1], (a, b) => (Number.isNaN(a) ? b : a));
      case 'IF': return zip3(args[0], args[1], args[2], (c, a, b) => (Number.isNaN(c) ? NaN : c ? a : b));
      case 'RATE': {
        const s = asSeries(args[0], length);
        const period = env.periods[argTokens[0]];
        return s.map((v, i) => (i === 0 ? NaN : (v - s[i - 1]) / period));
      }
      // DIFF: each value less the one before it.
      case 'DIFF': {
        const s = asSeries(args[0], length);
        return s.map((v, i) => (i === 0 ? NaN : v - s[i - 1]));
      }
      default: throw new Error(name);
    }
  };
  const product = binary(primary, ['*', '/']);
  const sum = binary(product, ['+', '-']);
  const comparison = binary(sum, ['<', '<=', '>', '>=', '==', '!=']);
  const result = comparison();
  if (pos !== tokens.length) throw new Error(`unexpected ${peek()} in ${expression}`);
  return asSeries(result, length);

  function zip(a: Value, b: Value, f: (x: number, y: number) => number): Value {
    if (typeof a === 'number' && typeof b === 'number') return f(a, b);
    return Array.from({ length }, (_, i) => f(at(a, i), at(b, i)));
  }
  function zip3(a: Value, b: Value, c: Value, f: (x: number, y: number, z: number) => number): Value {
    return Array.from({ length }, (_, i) => f(at(a, i), at(b, i), at(c, i)));
  }
}

function apply(op: string, a: number, b: number): number {
  switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return a / b;
    case '<': return Number(a < b);
    case '<=': return Number(a <= b);
    case '>': return Number(a > b);
    case '>=': return Number(a >= b);
    case '==': return Number(a === b);
    default: return Number(a !== b);
  }
}

const at = (v: Value, i: number): number => (typeof v === 'number' ? v : (v as Series)[i]);
const asSeries = (v: Value, length: number): Series => (typeof v === 'number' ? Array(length).fill(v) : v as Series);

function tokenize(expression: string): string[] {
  const tokens = expression.match(/\d+(\.\d+)?|[A-Za-z_][A-Za-z0-9_]*|<=|>=|==|!=|[-+*/(),<>[\]]/g) ?? [];
  if (tokens.join('') !== expression.replace(/\s+/g, '')) throw new Error(`cannot tokenize ${expression}`);
  return tokens;
}

/** An AWS::CloudWatch::Alarm's properties, as synthesized. */
export interface AlarmProperties {
  MetricName?: string;
  Statistic?: string;
  Period?: number;
  Metrics?: Array<{ Id: string; Expression?: string; ReturnData?: boolean; MetricStat?: { Metric: { MetricName: string }; Period: number; Stat: string } }>;
  ComparisonOperator: string;
  Threshold: number;
  EvaluationPeriods: number;
  DatapointsToAlarm?: number;
  TreatMissingData?: string;
}

/**
 * Whether the alarm is in ALARM after the last datapoints of the series. `input` gives each metric's
 * series by `MetricName:Stat`, or by `id:<Id>` where metrics share a name (other dimensions).
 */
export function alarmFires(alarm: AlarmProperties, input: Record<string, Series>): boolean {
  const length = Math.max(...Object.values(input).map((s) => s.length));
  const seriesOf = (name: string, stat: string) => {
    const s = input[`${name}:${stat}`];
    if (!s) throw new Error(`the test gave no series for ${name}:${stat}`);
    return s;
  };
  let values: Series;
  if (alarm.MetricName) {
    values = seriesOf(alarm.MetricName, alarm.Statistic!);
  } else {
    const env: Env = { series: {}, periods: {} };
    for (const m of alarm.Metrics!.filter((x) => x.MetricStat)) {
      env.series[m.Id] = input[`id:${m.Id}`] ?? seriesOf(m.MetricStat!.Metric.MetricName, m.MetricStat!.Stat);
      env.periods[m.Id] = m.MetricStat!.Period;
    }
    const returned = alarm.Metrics!.find((m) => m.ReturnData !== false)!;
    values = evaluate(returned.Expression!, env, length);
  }
  const window = values.slice(-alarm.EvaluationPeriods);
  const breaching = window.filter((v) => {
    if (Number.isNaN(v) || v === undefined) return alarm.TreatMissingData === 'breaching';
    switch (alarm.ComparisonOperator) {
      case 'GreaterThanOrEqualToThreshold': return v >= alarm.Threshold;
      case 'GreaterThanThreshold': return v > alarm.Threshold;
      case 'LessThanThreshold': return v < alarm.Threshold;
      case 'LessThanOrEqualToThreshold': return v <= alarm.Threshold;
      default: throw new Error(alarm.ComparisonOperator);
    }
  }).length;
  return breaching >= (alarm.DatapointsToAlarm ?? alarm.EvaluationPeriods);
}
