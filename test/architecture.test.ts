import * as path from 'path';
import { circles, Import, importGraph } from './helpers/import-graph';

// The floors of the code and what may import what (docs/architecture.md draws them):
//   contracts   lib/<capability>/contract/: what constructs, handlers and the CLI share (property
//               names, limits, metric names, path rules); import nothing but other contracts.
//   constructs  lib/: never import lambda/ or bin/.
//   cost        lib/cost/: the price list and cost model, also read by the probe's handler and the
//               CLI; imports only contracts and no package (the handler bundles it).
//   handlers    lambda/: import of lib/ only contracts and lib/cost.
//   CLI         bin/: may import any of them.
// And no runtime import circle anywhere: a back edge is type-only (erased at compile time).

const contract = /^lib\/[^/]+\/contract\//;
const layer = (file: string) => file.split('/')[0];

/** Each import that breaks a rule above, as 'from -> to: why'. */
function forbiddenImports(imports: Import[]): string[] {
  const problems: string[] = [];
  for (const i of imports) {
    const why = (() => {
      if (contract.test(i.from)) {
        if (!i.relative) return 'a contract imports no package';
        if (!contract.test(i.to)) return 'a contract imports only other contracts';
      }
      if (i.from.startsWith('lib/cost/') && (!i.relative || !(i.to.startsWith('lib/cost/') || contract.test(i.to)))) {
        return 'lib/cost imports only itself and contracts (the probe\'s handler bundles it)';
      }
      if (!i.relative) return undefined;
      if (layer(i.from) === 'lib' && layer(i.to) !== 'lib') return `lib/ never imports ${layer(i.to)}/`;
      if (layer(i.from) === 'lambda' && layer(i.to) === 'lib' && !contract.test(i.to) && !i.to.startsWith('lib/cost/')) {
        return 'lambda/ imports of lib/ only contracts and lib/cost';
      }
      if (layer(i.from) === 'lambda' && layer(i.to) === 'bin') return 'lambda/ never imports bin/';
      return undefined;
    })();
    if (why) problems.push(`${i.from} -> ${i.to}: ${why}`);
  }
  return problems;
}

const runtime = (imports: Import[]) => imports.filter((i) => !i.typeOnly);

describe('the source tree', () => {
  const imports = importGraph(path.join(__dirname, '..'), ['lib', 'lambda', 'bin']);

  test('reads a good number of imports (the checks below are not vacuous)', () => {
    expect(imports.filter((i) => i.relative).length).toBeGreaterThan(300);
    expect(imports.some((i) => i.from.startsWith('lambda/') && contract.test(i.to))).toBe(true);
  });

  test('keeps every floor to what it may import', () => {
    expect(forbiddenImports(imports)).toEqual([]);
  });

  test('has no runtime import circle', () => {
    expect(circles(runtime(imports))).toEqual([]);
  });

  test('has no import circle at all in the handlers and the command line, types included', () => {
    expect(circles(imports.filter((i) => layer(i.from) !== 'lib'))).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const edge = (from: string, to: string, typeOnly = false, relative = true): Import => ({ from, to, relative, typeOnly });

  test('fail on lib/ importing a handler module', () => {
    expect(forbiddenImports([edge('lib/seed/file-system-seed.ts', 'lambda/seed/limits.ts')]))
      .toEqual(['lib/seed/file-system-seed.ts -> lambda/seed/limits.ts: lib/ never imports lambda/']);
  });

  test('fail on a handler importing a construct module, not a contract or lib/cost', () => {
    expect(forbiddenImports([
      edge('lambda/probe/runner.ts', 'lib/probe/benchmark-probe.ts'),
      edge('lambda/probe/runner.ts', 'lib/probe/contract/limits.ts'),
      edge('lambda/probe/cost.ts', 'lib/cost/efs-cost.ts'),
    ])).toEqual(['lambda/probe/runner.ts -> lib/probe/benchmark-probe.ts: lambda/ imports of lib/ only contracts and lib/cost']);
  });

  test('fail on a contract importing a package or a module of either side', () => {
    expect(forbiddenImports([
      edge('lib/seed/contract/limits.ts', 'aws-cdk-lib', false, false),
      edge('lib/seed/contract/limits.ts', 'lambda/seed/target/link-graph.ts'),
      edge('lib/seed/contract/limits.ts', 'lib/core/contract/lambda-cpu.ts'),
    ])).toEqual([
      'lib/seed/contract/limits.ts -> aws-cdk-lib: a contract imports no package',
      'lib/seed/contract/limits.ts -> lambda/seed/target/link-graph.ts: a contract imports only other contracts',
    ]);
  });

  test('find a circle, and none once its back edge is type-only', () => {
    const loop = [edge('lib/a.ts', 'lib/b.ts'), edge('lib/b.ts', 'lib/c.ts'), edge('lib/c.ts', 'lib/a.ts', true)];
    expect(circles(loop)).toEqual([['lib/a.ts', 'lib/b.ts', 'lib/c.ts']]);
    expect(circles(runtime(loop))).toEqual([]);
  });
});
