import { EFS_DASHBOARD, MockDashboard, S3_FILES_DASHBOARD } from '../../tools/dashboard-mock/dashboards';
import { dashboardHtml, linesOf } from '../../tools/dashboard-mock/render';

// The docs' dashboard screenshots are taken of tools/dashboard-mock's pages: each must draw every
// widget of the body its monitoring (FileSystemMonitoring, S3FilesMonitoring) synthesizes today, and
// compute every line (the metric math evaluator knows each function the expressions use, the made-up
// day has each metric and SEARCH they read).
describe.each([
  ['FileSystemMonitoring', EFS_DASHBOARD, ['Data access spend (USD/hour)', 'Spend per day (USD/day)']],
  ['S3FilesMonitoring', S3_FILES_DASHBOARD, ['PendingExports', 'Average write size (KiB)', 'NFSConnectionAccessible', 'Spend per day (USD/day)',
    'Bucket storage (USD/day)']],
] as Array<[string, MockDashboard, string[]]>)('%s', (_name, dashboard, titles) => {
  const { day } = dashboard;
  const widgets = dashboard.widgets();

  test('the mock draws every widget of the synthesized dashboard, with each line in the legend', () => {
    const html = dashboardHtml(widgets, 'caption', day);
    for (const w of widgets.filter((x) => x.type === 'metric')) {
      expect(html).toContain(`<div class="t">${w.properties.title}</div>`);
      for (const line of linesOf(w.properties.metrics!, day)) expect(html).toContain(line.label.replace(/&/g, '&amp;'));
    }
    expect(widgets.map((w) => w.properties.title).filter(Boolean)).toEqual(expect.arrayContaining(titles));
  });

  test('every line of every graph has values over the made-up day', () => {
    for (const w of widgets.filter((x) => x.type === 'metric')) {
      for (const line of linesOf(w.properties.metrics!, day)) expect([w.properties.title, line.label, line.values.some(Number.isFinite)]).toEqual([w.properties.title, line.label, true]);
    }
  });
});
