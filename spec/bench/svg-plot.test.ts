// The bench's per-workload SVG: bars proportional to the medians (per place), whiskers min–max, labels escaped.
import { describe, expect, it } from 'vitest';
import { renderSvg } from '../../bench/lib/svg-plot.js';

describe('bench SVG plot', () => {
  it('draws one bar per system scaled to the group, a whisker for the spread, escaped labels', () => {
    const svg = renderSvg({
      title: 'Workload <2>',
      unit: 's',
      groups: [
        {
          title: 'real & embedded',
          bars: [
            { label: 'reconcilekit, 8 workers', median: 2, min: 2, max: 2 },
            { label: 'write floor', median: 1, min: 0.5, max: 4 },
            { label: 'missing', median: Number.NaN, min: Number.NaN, max: Number.NaN },
          ],
        },
      ],
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('Workload &lt;2&gt;');
    expect(svg).toContain('real &amp; embedded');
    const widths = [...svg.matchAll(/<rect x="300" y="\d+" width="([\d.]+)"/g)].map((m) => Number(m[1]));
    // The largest value in the group (max 4) spans the plot; medians 2 and 1 are half and a quarter of it.
    expect(widths).toHaveLength(3);
    expect(widths[0]! / widths[1]!).toBeCloseTo(2, 1);
    expect(widths[2]).toBe(0);
    expect(svg.match(/<line /g)).toHaveLength(3); // one whisker (3 lines) for the only bar with a spread
    expect(svg).toContain('>n/a<');
  });
});
