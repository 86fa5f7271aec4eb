/**
 * Renders a monitoring dashboard, as synthesized, into the docs' screenshot:
 *
 *   npx tsx tools/dashboard-mock/main.ts docs/dashboard.png                      FileSystemMonitoring
 *   npx tsx tools/dashboard-mock/main.ts --s3-files docs/s3-files-dashboard.png  S3FilesMonitoring
 *
 * Synthesizes the file system and its monitoring with a $25 daily budget, takes the dashboard body
 * from the template (dashboards.ts), draws it with render.ts over a made-up day (efs-traffic.ts,
 * s3-files-traffic.ts), and screenshots that page in headless Chromium (/usr/bin/chromium, which
 * tools/setup.sh installs).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EFS_DASHBOARD, MockDashboard, S3_FILES_DASHBOARD } from './dashboards';
import { boardHeight, dashboardHtml } from './render';

/** Room under the board for the caption's lines. */
const CAPTION_HEIGHT = 61;

/** Screenshots `dashboard` into `png`, as wide as the grid and as tall as its rows and caption. */
function screenshot(dashboard: MockDashboard, png: string): void {
  const widgets = dashboard.widgets();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-mock-'));
  const html = path.join(dir, 'dashboard.html');
  const profile = path.join(dir, 'chromium-profile');
  fs.writeFileSync(html, dashboardHtml(widgets, dashboard.caption, dashboard.day));
  try {
    execFileSync('/usr/bin/chromium', [
      '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--hide-scrollbars',
      `--user-data-dir=${profile}`, `--screenshot=${png}`, `--window-size=1120,${boardHeight(widgets) + CAPTION_HEIGHT}`, `file://${html}`,
    ], { stdio: 'ignore', timeout: 60_000 });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const USAGE = 'usage: npx tsx tools/dashboard-mock/main.ts [--s3-files] [out.png]';

if (require.main === module) {
  const args = process.argv.slice(2);
  const flags = args.filter((a) => a.startsWith('-'));
  const files = args.filter((a) => !a.startsWith('-'));
  if (flags.some((f) => f !== '--s3-files') || files.length > 1) {
    console.error(USAGE);
    process.exit(2);
  }
  const s3Files = flags.includes('--s3-files');
  const png = path.resolve(files[0] ?? (s3Files ? 's3-files-dashboard.png' : 'dashboard.png'));
  screenshot(s3Files ? S3_FILES_DASHBOARD : EFS_DASHBOARD, png);
  console.log(`${png}: ${fs.statSync(png).size} bytes`);
}
