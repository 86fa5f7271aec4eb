/**
 * Renders FileSystemMonitoring's dashboard, as synthesized, into the README's screenshot:
 *
 *   npx tsx tools/dashboard-mock/main.ts docs/dashboard.png
 *
 * Synthesizes an Elastic SharedFileSystem with a $25 daily budget, takes the dashboard body from
 * the template, draws it with render.ts over traffic.ts's made-up day, and screenshots that page in
 * headless Chromium (/usr/bin/chromium, which tools/setup.sh installs).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { AlarmThreshold, SharedFileSystem } from '../../lib';
import { dashboardHtml, Widget } from './render';

const FILE_SYSTEM_ID = 'fs-0123456789abcdef0';

/** The dashboard's widgets, with the file system id in place of its token. */
export function synthesizedWidgets(): Widget[] {
  const stack = new Stack(new App(), 'MyApp', { env: { account: '123456789012', region: 'us-east-1' } });
  const files = new SharedFileSystem(stack, 'Files', { vpc: new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 }) });
  files.addMonitoring('Monitoring', { title: 'Files', alarms: { dailySpendLimit: AlarmThreshold.usd(25) } });
  const dashboard = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'))[0];
  const body = dashboard.Properties.DashboardBody;
  const text: string = typeof body === 'string' ? body : body['Fn::Join'][1].map((p: unknown) => (typeof p === 'string' ? p : FILE_SYSTEM_ID)).join('');
  return JSON.parse(text).widgets;
}

const CAPTION = 'A mock of the synthesized dashboard, drawn from its body JSON with each expression evaluated over a made-up day '
  + '(a web application, and a runaway job re-reading files from 19:00 to 23:00); the anomaly band is a stand-in for the one '
  + 'CloudWatch learns from two weeks of history. Prices: us-east-1.';

if (require.main === module) {
  const png = path.resolve(process.argv[2] ?? 'dashboard.png');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-mock-'));
  const html = path.join(dir, 'dashboard.html');
  const profile = path.join(dir, 'chromium-profile');
  fs.writeFileSync(html, dashboardHtml(synthesizedWidgets(), CAPTION));
  try {
    execFileSync('/usr/bin/chromium', [
      '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--hide-scrollbars',
      `--user-data-dir=${profile}`, `--screenshot=${png}`, '--window-size=1120,945', `file://${html}`,
    ], { stdio: 'ignore', timeout: 60_000 });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`${png}: ${fs.statSync(png).size} bytes`);
}
