import { synthesizedWidgets } from '../../tools/dashboard-mock/main';
import { dashboardHtml, linesOf } from '../../tools/dashboard-mock/render';

// The README's dashboard screenshot is taken of tools/dashboard-mock's page: it must draw every widget
// of the body FileSystemMonitoring synthesizes today, and compute every line (the metric math
// evaluator knows each function the expressions use).
const widgets = synthesizedWidgets();

test('the mock draws every widget of the synthesized dashboard, with each line in the legend', () => {
  const html = dashboardHtml(widgets, 'caption');
  for (const w of widgets.filter((x) => x.type === 'metric')) {
    expect(html).toContain(`<div class="t">${w.properties.title}</div>`);
    for (const line of linesOf(w.properties.metrics!)) expect(html).toContain(line.label.replace(/&/g, '&amp;'));
  }
  expect(widgets.map((w) => w.properties.title).filter(Boolean)).toEqual(expect.arrayContaining(['Data access spend (USD/hour)', 'Spend per day (USD/day)']));
});

test('every line of every graph has values over the made-up day', () => {
  for (const w of widgets.filter((x) => x.type === 'metric')) {
    for (const line of linesOf(w.properties.metrics!)) expect([w.properties.title, line.label, line.values.some(Number.isFinite)]).toEqual([w.properties.title, line.label, true]);
  }
});
