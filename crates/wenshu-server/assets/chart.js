// A small line chart drawn as inline SVG, no library: for results that are a trend
// (a date-like first column and one or more numeric columns).

const SVG_NS = 'http://www.w3.org/2000/svg';
const DATE_COLUMNS = new Set(['day', 'date', 'month', 'week', 'year_month', 'dt', '日期', '日', '月份', '月', '时间', '周']);
const DATE_VALUE = /^\d{4}([-/.]\d{1,2}([-/.]\d{1,2})?|年\d{1,2}月(\d{1,2}日)?|-?W\d{1,2})/;
const PALETTE = ['#2563eb', '#db2777', '#059669', '#d97706', '#7c3aed', '#0891b2'];

function toNumber(value) {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

/**
 * Which columns make a trend: `{ x: 0, series: [column indexes] }`, or null when the result is no trend.
 * A trend has at least two rows, a first column named like a date (or holding dates) and numeric columns.
 */
export function trendOf(columns, rows) {
  if (!Array.isArray(columns) || !Array.isArray(rows) || columns.length < 2 || rows.length < 2) return null;
  const name = String(columns[0]).trim().toLowerCase();
  const datesByName = DATE_COLUMNS.has(name);
  const datesByValue = rows.every((r) => Array.isArray(r) && DATE_VALUE.test(String(r[0] ?? '')));
  if (!datesByName && !datesByValue) return null;
  const series = [];
  for (let c = 1; c < columns.length; c += 1) {
    let numbers = 0;
    let ok = true;
    for (const row of rows) {
      const v = row[c];
      if (v === null || v === undefined) continue;
      if (toNumber(v) === null) {
        ok = false;
        break;
      }
      numbers += 1;
    }
    if (ok && numbers >= 2) series.push(c);
  }
  return series.length ? { x: 0, series } : null;
}

/** Round numbers for the axis: about `count` ticks covering [min, max]. */
function niceTicks(min, max, count = 5) {
  if (min === max) {
    const pad = Math.abs(min) || 1;
    min -= pad / 2;
    max += pad / 2;
  }
  const raw = (max - min) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) || raw;
  const lo = Math.floor(min / step) * step;
  const hi = Math.ceil(max / step) * step;
  const ticks = [];
  for (let v = lo; v <= hi + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

function el(name, attrs = {}, text) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Shorter x labels: drop a year all the labels share. */
function xLabels(values) {
  const text = values.map((v) => String(v ?? ''));
  const years = new Set(text.map((s) => (/^\d{4}-/.test(s) ? s.slice(0, 4) : null)));
  if (years.size === 1 && !years.has(null) && text.every((s) => s.length > 7)) return text.map((s) => s.slice(5));
  return text;
}

/**
 * The chart for `columns`/`rows` and a trend from `trendOf`, as a <figure data-testid="chart">.
 * `locale` formats the numbers; `caption` is the figure's caption.
 */
export function lineChart(columns, rows, trend, { locale = 'zh-CN', caption = '', width: wanted = 640 } = {}) {
  // Drawn at about the width it is shown at, so that the text keeps its size on narrow screens.
  const width = Math.round(Math.max(300, Math.min(760, wanted || 640)));
  const height = width < 480 ? 220 : 260;
  const pad = { left: 52, right: 24, top: 16, bottom: 38 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;

  const values = [];
  for (const c of trend.series) for (const row of rows) {
    const n = toNumber(row[c]);
    if (n !== null) values.push(n);
  }
  let min = Math.min(...values);
  let max = Math.max(...values);
  if (min > 0) min = 0; // an honest baseline for amounts
  if (max < 0) max = 0;
  const ticks = niceTicks(min, max);
  const yMin = ticks[0];
  const yMax = ticks[ticks.length - 1];
  const y = (v) => pad.top + plotH - ((v - yMin) / (yMax - yMin || 1)) * plotH;
  const x = (i) => pad.left + (rows.length === 1 ? plotW / 2 : (i / (rows.length - 1)) * plotW);

  const compact = new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 2 });
  const full = new Intl.NumberFormat(locale, { maximumFractionDigits: 4 });
  const seriesNames = trend.series.map((c) => String(columns[c]));

  const svg = el('svg', {
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': caption || seriesNames.join(', '),
    preserveAspectRatio: 'xMidYMid meet',
    class: 'chart-svg',
  });

  // Grid and y axis.
  const grid = el('g', { class: 'chart-grid' });
  for (const tick of ticks) {
    const ty = y(tick);
    grid.append(el('line', { x1: pad.left, x2: width - pad.right, y1: ty, y2: ty }));
    grid.append(el('text', { x: pad.left - 8, y: ty + 4, 'text-anchor': 'end', class: 'chart-tick' }, compact.format(tick)));
  }
  svg.append(grid);

  // X axis labels: at most about eight.
  const labels = xLabels(rows.map((r) => r[trend.x]));
  const fit = Math.max(2, Math.floor(plotW / 64)); // labels that fit side by side
  const every = Math.max(1, Math.ceil(rows.length / fit));
  const xAxis = el('g', { class: 'chart-x' });
  xAxis.append(el('line', { x1: pad.left, x2: width - pad.right, y1: pad.top + plotH, y2: pad.top + plotH, class: 'chart-axis' }));
  labels.forEach((label, i) => {
    if (i % every !== 0 && i !== labels.length - 1) return;
    xAxis.append(el('text', { x: x(i), y: height - pad.bottom + 18, 'text-anchor': 'middle', class: 'chart-tick' }, label));
  });
  svg.append(xAxis);

  // One line per numeric column, with a point (and its value on hover) per row.
  trend.series.forEach((c, s) => {
    const color = PALETTE[s % PALETTE.length];
    const g = el('g', { class: 'chart-series', 'data-series': columns[c] });
    let d = '';
    let pen = 'M';
    rows.forEach((row, i) => {
      const n = toNumber(row[c]);
      if (n === null) {
        pen = 'M';
        return;
      }
      d += `${pen}${x(i).toFixed(1)},${y(n).toFixed(1)} `;
      pen = 'L';
    });
    g.append(el('path', { d: d.trim(), fill: 'none', stroke: color, 'stroke-width': 2.5, 'stroke-linejoin': 'round', 'stroke-linecap': 'round', class: 'chart-line' }));
    rows.forEach((row, i) => {
      const n = toNumber(row[c]);
      if (n === null) return;
      const dot = el('circle', { cx: x(i).toFixed(1), cy: y(n).toFixed(1), r: 3.5, fill: '#fff', stroke: color, 'stroke-width': 2, class: 'chart-dot' });
      dot.append(el('title', {}, `${row[trend.x]} · ${columns[c]}: ${full.format(n)}`));
      g.append(dot);
    });
    svg.append(g);
  });

  const figure = document.createElement('figure');
  figure.className = 'chart';
  figure.dataset.testid = 'chart';
  figure.append(svg);
  const cap = document.createElement('figcaption');
  const legend = document.createElement('span');
  legend.className = 'chart-legend';
  seriesNames.forEach((name, s) => {
    const item = document.createElement('span');
    item.className = 'chart-legend-item';
    const swatch = document.createElement('span');
    swatch.className = 'chart-swatch';
    swatch.style.background = PALETTE[s % PALETTE.length];
    item.append(swatch, document.createTextNode(name));
    legend.append(item);
  });
  cap.append(document.createTextNode(caption), legend);
  figure.append(cap);
  return figure;
}
