import { EFS_DASHBOARD } from '../../tools/dashboard-mock/dashboards';
import { dashboardHtml, linesOf } from '../../tools/dashboard-mock/render';

// The docs' dashboard screenshot is taken of tools/dashboard-mock's page: it must draw every widget
// of the body FileSystemMonitoring synthesizes today, and compute every line (the metric math
// evaluator knows each function the expressions use).
const { day } = EFS_DASHBOARD;
const widgets = EFS_DASHBOARD.widgets();

test('the mock draws every widget of the synthesized dashboard, with each line in the legend', () => {
  const html = dashboardHtml(widgets, 'caption', day);
  for (const w of widgets.filter((x) => x.type === 'metric')) {
    expect(html).toContain(`<div class="t">${w.properties.title}</div>`);
    for (const line of linesOf(w.properties.metrics!, day)) expect(html).toContain(line.label.replace(/&/g, '&amp;'));
  }
  expect(widgets.map((w) => w.properties.title).filter(Boolean)).toEqual(expect.arrayContaining(['Data access spend (USD/hour)', 'Spend per day (USD/day)']));
});

test('every line of every graph has values over the made-up day', () => {
  for (const w of widgets.filter((x) => x.type === 'metric')) {
    for (const line of linesOf(w.properties.metrics!, day)) expect([w.properties.title, line.label, line.values.some(Number.isFinite)]).toEqual([w.properties.title, line.label, true]);
  }
});
