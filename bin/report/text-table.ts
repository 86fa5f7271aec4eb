import { longestPiece, TextLayout, wrapText } from './text-layout';

/** A column of a report's table: figures align right, words left. */
export interface TableColumn {
  readonly header: string;
  readonly align: 'left' | 'right';
}

/** Between two columns on a terminal. */
const GAP = '  ';
/** A word longer than this in a text column (a path, an id) may be cut rather than widen the table. */
const LONGEST_UNCUT_WORD = 24;

/**
 * A table in the layout: Markdown's pipes, or for a terminal padded columns under an underlined
 * header that fit the width. Text cells (and headers) wrap onto continuation lines where the
 * columns do not fit side by side; a figure is never cut. Where not even that fits, each row
 * becomes a block of `header: value` lines.
 */
export function renderTable(columns: TableColumn[], rows: string[][], layout: TextLayout): string[] {
  if (layout.markdown) {
    return [
      `| ${columns.map((c) => c.header).join(' | ')} |`,
      `|${columns.map((c) => (c.align === 'right' ? '---:' : '---')).join('|')}|`,
      ...rows.map((row) => `| ${row.join(' | ')} |`),
    ];
  }
  const widths = columnWidths(columns, rows, layout.width);
  if (!widths) return stacked(columns, rows, layout.width);
  const header = block(columns.map((c) => c.header), columns, widths);
  return [...header, widths.map((w) => '-'.repeat(w)).join(GAP), ...rows.flatMap((row) => block(row, columns, widths))];
}

/** Each column's width: as wide as its widest cell where all fit, else shared out; undefined where even the narrowest do not fit. */
function columnWidths(columns: TableColumn[], rows: string[][], width: number): number[] | undefined {
  const cells = (i: number) => [columns[i].header, ...rows.map((r) => r[i] ?? '')];
  const natural = columns.map((_, i) => Math.max(...cells(i).map((c) => c.length)));
  const narrowest = columns.map((c, i) => Math.max(...cells(i).map((cell) => {
    const longest = longestPiece(cell, c.align === 'left');
    return c.align === 'left' ? Math.min(longest, LONGEST_UNCUT_WORD) : longest;
  })));
  const room = width - GAP.length * (columns.length - 1);
  const sum = (ws: number[]) => ws.reduce((a, b) => a + b, 0);
  if (sum(natural) <= room) return natural;
  if (sum(narrowest) > room) return undefined;
  // Fair shares of the spare room, the columns that need least first: a column short of its
  // natural width by less than its share gets all it needs, and the rest go round again.
  const widths = [...narrowest];
  let spare = room - sum(narrowest);
  const needy = columns.map((_, i) => i).sort((a, b) => (natural[a] - narrowest[a]) - (natural[b] - narrowest[b]));
  needy.forEach((i, k) => {
    const give = Math.min(natural[i] - narrowest[i], Math.floor(spare / (needy.length - k)));
    widths[i] += give;
    spare -= give;
  });
  return widths;
}

/** One row (or the header): each cell wrapped to its column, padded, as many lines as its tallest cell. */
function block(row: string[], columns: TableColumn[], widths: number[]): string[] {
  const wrapped = columns.map((c, i) => wrapText(row[i] ?? '', widths[i], { hyphens: c.align === 'left' }));
  const height = Math.max(...wrapped.map((w) => w.length));
  return Array.from({ length: height }, (_, line) => columns.map((c, i) => {
    const text = wrapped[i][line] ?? '';
    return c.align === 'right' ? text.padStart(widths[i]) : text.padEnd(widths[i]);
  }).join(GAP).trimEnd());
}

/** Too narrow for columns: a block per row, `header: value` a line, the rows apart. */
function stacked(columns: TableColumn[], rows: string[][], width: number): string[] {
  return rows.flatMap((row, r) => [
    ...(r > 0 ? [''] : []),
    ...columns.flatMap((c, i) => wrapText(`${c.header}: ${row[i] ?? ''}`, Math.max(width - 2, 1)).map((line, k) => (k === 0 ? line : `  ${line}`))),
  ]);
}
