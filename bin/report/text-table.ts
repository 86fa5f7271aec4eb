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

/**
 * Each column's width: as wide as its widest cell where all fit; else, from the narrowest they can
 * be (their longest words), whichever of two ways to share the room makes the table shorter: the
 * widest columns cut down to one level, or room given where it saves most wrapped lines.
 * Undefined where not even the narrowest fit.
 */
function columnWidths(columns: TableColumn[], rows: string[][], width: number): number[] | undefined {
  const cells = columns.map((c, i) => [c.header, ...rows.map((r) => r[i] ?? '')]);
  const natural = cells.map((column) => Math.max(...column.map((cell) => cell.length)));
  const narrowest = columns.map((c, i) => Math.max(...cells[i].map((cell) => {
    const longest = longestPiece(cell, c.align === 'left');
    return c.align === 'left' ? Math.min(longest, LONGEST_UNCUT_WORD) : longest;
  })));
  const room = width - GAP.length * (columns.length - 1);
  if (sum(natural) <= room) return natural;
  if (sum(narrowest) > room) return undefined;
  const linesOf = (i: number, w: number) => cells[i].map((cell) => wrapText(cell, w, { hyphens: columns[i].align === 'left' }).length);
  const height = (ws: number[]) => {
    const lines = ws.map((w, i) => linesOf(i, w));
    return cells[0].reduce((total, _, r) => total + Math.max(...lines.map((l) => l[r])), 0);
  };
  const [levelled, greedy] = [cutToLevel(narrowest, natural, room), widenWhereItSaves(narrowest, natural, room, linesOf)];
  return height(levelled) < height(greedy) ? levelled : greedy;
}

const sum = (ws: number[]) => ws.reduce((a, b) => a + b, 0);

/** The widest columns cut to the highest common width the room allows (never below their narrowest). */
function cutToLevel(narrowest: number[], natural: number[], room: number): number[] {
  const at = (level: number) => natural.map((n, i) => Math.max(narrowest[i], Math.min(n, level)));
  let level = Math.max(...natural);
  while (level > 0 && sum(at(level)) > room) level--;
  return at(level);
}

/** From the narrowest, room given greedily where it saves the most wrapped lines per character, until none saves any. */
function widenWhereItSaves(narrowest: number[], natural: number[], room: number, linesOf: (i: number, w: number) => number[]): number[] {
  const widths = [...narrowest];
  let spare = room - sum(narrowest);
  for (;;) {
    let best: { column: number; width: number; score: number } | undefined;
    widths.forEach((current, i) => {
      const lines = sum(linesOf(i, current));
      for (let w = current + 1; w <= Math.min(natural[i], current + spare); w++) {
        const saved = lines - sum(linesOf(i, w));
        if (saved > 0) {
          const score = saved / (w - current);
          if (!best || score > best.score) best = { column: i, width: w, score };
          break;
        }
      }
    });
    if (!best) return widths;
    spare -= best.width - widths[best.column];
    widths[best.column] = best.width;
  }
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
