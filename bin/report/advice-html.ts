import { THROUGHPUT_MODES } from '../../lib/cost/efs-cost';
import { Advice, formatDays, MODE_NAMES } from '../advise/advice';
import { barChart } from './bar-chart';
import { adviceRows, noDataLine, s3FilesLine, storageLine, trafficLine, windowLine } from './advice-table';
import { escapeHtml, htmlPage } from './html-page';

/** `cdk-efs-kit advise --html`: the advice as a self-contained page in the probe report's style, with its charts. */
export function renderAdviceHtml(advice: Advice): string {
  const title = `${advice.kind === 's3files' ? 'S3 Files' : 'EFS'} spend advice: ${advice.fileSystemId}`;
  const source = (p: Advice['pricing']) => (p.source ? ` (${p.source})` : '');
  const period = `<p>${escapeHtml(`${windowLine(advice)}. Prices: ${advice.pricing.label}${source(advice.pricing)}; `
    + `S3 Files: ${advice.s3Files.pricing.label}${source(advice.s3Files.pricing)}.`)}</p>`;
  if (!advice.dataFound) return htmlPage(title, `${period}\n<p>${escapeHtml(noDataLine(advice))}</p>`);
  const [head, ...rows] = adviceRows(advice);
  const table = `<table class="modes"><thead><tr><th></th>${head.cells.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr></thead><tbody>`
    + rows.map((r) => `<tr><th>${escapeHtml(r.label)}</th>${r.cells.map((c) => `<td class="num">${escapeHtml(c)}</td>`).join('')}</tr>`).join('')
    + '</tbody></table>';
  const exact = (value: number) => ({ value, low: value, high: value });
  const charts = [
    barChart({
      title: `Cost over ${formatDays(advice.days)} by throughput mode and on S3 Files`, unit: 'US$', series: ['data access or throughput', 'storage'],
      rows: [
        ...THROUGHPUT_MODES.map((m) => ({ label: MODE_NAMES[m], bars: [exact(advice[m].throughputUsd), exact(advice[m].storageUsd)] })),
        { label: 'S3 Files', bars: [exact(advice.s3Files.accessUsd), exact(advice.s3Files.storageUsd)] },
      ],
    }),
    barChart({
      title: 'Data access or throughput per day', unit: 'US$', series: [...THROUGHPUT_MODES.map((m) => MODE_NAMES[m]), 'S3 Files'],
      rows: advice.perDay.map((day) => ({ label: day.start.slice(0, 16).replace('T', ' '), bars: [...THROUGHPUT_MODES.map((m) => exact(day[m])), exact(day.s3Files)] })),
    }),
  ];
  const recommendation = (advice.recommendation ? `<p><strong>Recommendation:</strong> ${escapeHtml(advice.recommendation.reason)}</p>` : '')
    + (advice.s3FilesComparison ? `\n<p>${escapeHtml(advice.s3FilesComparison)}</p>` : '');
  const notes = advice.notes.length > 0 ? `<h2>Notes</h2>\n<ul>${advice.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>` : '';
  return htmlPage(title, `${period}
<p>${escapeHtml(trafficLine(advice))}</p>
<p>${escapeHtml(storageLine(advice))}</p>
<p>${escapeHtml(s3FilesLine(advice))}</p>
${recommendation}
${table}
${charts.join('\n')}
${notes}`);
}
