import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { IConstruct } from 'constructs';
import { AwsSolutionsChecks } from 'cdk-nag';

/** cdk-nag AwsSolutions findings under `scope` that nobody acknowledged, one line each. */
export function nagErrors(scope: IConstruct): string[] {
  const report = new AwsSolutionsChecks(scope).validateScope(scope);
  return report.violations.flatMap((v) =>
    v.violatingResources.map((c) => `${v.ruleName} at ${c.constructPath ?? c.resourceLogicalId}: ${v.description.split('\n')[0]}`));
}

const CFN_LINT = path.join(__dirname, '..', '..', '.venv', 'bin', 'cfn-lint');

/** cfn-lint's error-level findings on a synthesized template (warnings such as W3005 are ignored). */
export function cfnLintErrors(template: object): string[] {
  if (!fs.existsSync(CFN_LINT)) throw new Error(`cfn-lint is missing at ${CFN_LINT}: run 'bash tools/setup.sh' (npm test does).`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfn-lint-'));
  const file = path.join(dir, 'template.json');
  fs.writeFileSync(file, JSON.stringify(template));
  try {
    const out = execFileSync(CFN_LINT, ['--format', 'json', '--non-zero-exit-code', 'none', file], { encoding: 'utf8' });
    const findings: Array<{ Level: string; Rule: { Id: string }; Message: string; Location: { Path: unknown[] } }> = JSON.parse(out || '[]');
    return findings.filter((f) => f.Level === 'Error').map((f) => `${f.Rule.Id} at ${JSON.stringify(f.Location.Path)}: ${f.Message}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
