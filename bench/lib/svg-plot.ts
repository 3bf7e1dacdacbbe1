// One SVG per workload, drawn by the bench from its own results: a horizontal bar per system and place
// (median), with a whisker from min to max. Hand-written SVG, no dependency.

/** One bar: a system's median with its spread. */
export interface PlotBar {
  label: string;
  median: number;
  min: number;
  max: number;
}

/** Bars of one place (embedded, real kube-apiserver, …), drawn on their own scale. */
export interface PlotGroup {
  title: string;
  bars: PlotBar[];
}

/** What a workload hands to the plot. */
export interface Plot {
  title: string;
  /** Unit of the values, e.g. "s to converge". */
  unit: string;
  groups: PlotGroup[];
}

const WIDTH = 860;
const LABEL_W = 300;
const BAR_H = 18;
const GAP = 6;
const PLOT_W = WIDTH - LABEL_W - 90;

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function format(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/** Renders a plot as a standalone SVG document. */
export function renderSvg(plot: Plot): string {
  const parts: string[] = [];
  let y = 34;
  parts.push(
    `<text x="10" y="22" font-size="15" font-weight="bold">${escape(plot.title)} (${escape(plot.unit)}, median; whisker min–max)</text>`,
  );
  for (const group of plot.groups) {
    y += 16;
    parts.push(`<text x="10" y="${y}" font-size="13" font-weight="bold">${escape(group.title)}</text>`);
    y += 8;
    const finite = group.bars.filter((b) => Number.isFinite(b.median));
    const top = Math.max(...finite.map((b) => (Number.isFinite(b.max) ? b.max : b.median)), 1e-9);
    const scale = PLOT_W / top;
    for (const bar of group.bars) {
      const w = Number.isFinite(bar.median) ? Math.max(1, bar.median * scale) : 0;
      const fill = bar.label.startsWith('reconcilekit')
        ? '#2f6fbf'
        : bar.label.startsWith('write floor')
          ? '#7a7a7a'
          : bar.label.startsWith('controller-runtime')
            ? '#3a9a5b'
            : '#d08a2c';
      parts.push(
        `<text x="${LABEL_W - 6}" y="${y + BAR_H - 5}" font-size="12" text-anchor="end">${escape(bar.label)}</text>`,
        `<rect x="${LABEL_W}" y="${y}" width="${w.toFixed(1)}" height="${BAR_H}" fill="${fill}"/>`,
      );
      if (Number.isFinite(bar.min) && Number.isFinite(bar.max) && bar.max > bar.min) {
        const x1 = LABEL_W + bar.min * scale;
        const x2 = LABEL_W + bar.max * scale;
        const cy = y + BAR_H / 2;
        parts.push(
          `<line x1="${x1.toFixed(1)}" y1="${cy}" x2="${x2.toFixed(1)}" y2="${cy}" stroke="#000" stroke-width="1"/>`,
          `<line x1="${x1.toFixed(1)}" y1="${cy - 4}" x2="${x1.toFixed(1)}" y2="${cy + 4}" stroke="#000"/>`,
          `<line x1="${x2.toFixed(1)}" y1="${cy - 4}" x2="${x2.toFixed(1)}" y2="${cy + 4}" stroke="#000"/>`,
        );
      }
      const labelX = LABEL_W + Math.max(w, Number.isFinite(bar.max) ? bar.max * scale : 0) + 6;
      parts.push(
        `<text x="${labelX.toFixed(1)}" y="${y + BAR_H - 5}" font-size="12">${format(bar.median)}</text>`,
      );
      y += BAR_H + GAP;
    }
  }
  const height = y + 10;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">\n` +
    `<rect width="100%" height="100%" fill="#fff"/>\n${parts.join('\n')}\n</svg>\n`
  );
}
