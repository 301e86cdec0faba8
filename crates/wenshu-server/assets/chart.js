// Charts drawn as inline SVG, no library, chosen by the answer's shape: bars for rankings and group-bys (one label
// column and measures), lines for time series (a date-like label column, in time order). Each measure gets its own
// small chart with its own axis, so that measures of different sizes never share a scale. A partial last period
// is marked. Every value can be read without a mouse: bars carry their values, and a line chart is focusable and
// moves a readout with the arrow keys, a tap or the pointer.

const SVG_NS = 'http://www.w3.org/2000/svg';
const DATE_VALUE = /^\d{4}(-\d{2}(-\d{2})?|-Q[1-4]|-W\d{2})?$/;
const PALETTE = ['#1d4ed8', '#be185d', '#047857', '#b45309', '#6d28d9', '#0e7490'];

/** A number from a cell, or null. */
export function toNumber(value) {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  return null;
}

/** Whether every value of column `c` is a number (or null), with at least one number. */
function numericColumn(rows, c) {
  let numbers = 0;
  for (const row of rows) {
    const v = row[c];
    if (v === null || v === undefined) continue;
    if (toNumber(v) === null) return false;
    numbers += 1;
  }
  return numbers > 0;
}

/**
 * The chart an answer's shape calls for: `{ kind: 'line'|'bar', x, measures, order }`, or null (a single row, a
 * detail list with several text columns, repeated labels). `hint` (`bar`/`line`, from the tool) wins when it fits.
 */
export function shapeOf(columns, rows, hint = null) {
  if (!Array.isArray(columns) || !Array.isArray(rows) || rows.length < 2 || columns.length < 2) return null;
  if (!rows.every((r) => Array.isArray(r) && r.length === columns.length)) return null;
  const numeric = columns.map((_, c) => numericColumn(rows, c));
  const labels = columns.map((_, c) => c).filter((c) => !numeric[c]);
  const measures = columns.map((_, c) => c).filter((c) => numeric[c]);
  if (labels.length !== 1 || !measures.length) return null;
  const x = labels[0];
  const keys = rows.map((r) => String(r[x] ?? ''));
  if (new Set(keys).size !== keys.length) return null; // a list with repeated labels is no series or ranking
  const dates = keys.every((k) => DATE_VALUE.test(k));
  let kind = dates ? 'line' : 'bar';
  if (hint === 'bar' || (hint === 'line' && dates)) kind = hint;
  const order = rows.map((_, i) => i);
  if (kind === 'line') order.sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
  return { kind, x, measures, order };
}

/** 'YYYY-MM' or 'YYYY' (or a day) as its last day, for the partial-period mark. */
function periodEnd(key) {
  const m = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?$/.exec(key);
  if (!m) return null;
  if (m[3]) return key;
  const year = Number(m[1]);
  if (m[2]) {
    const month = Number(m[2]);
    const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
    return `${m[1]}-${m[2]}-${String(last).padStart(2, '0')}`;
  }
  return `${m[1]}-12-31`;
}

/** Whether the last period `key` is still running on `today` (YYYY-MM-DD): it holds today and ends later. */
export function partialPeriod(key, today) {
  if (!today || !key) return false;
  const end = periodEnd(key);
  return Boolean(end) && end > today && today.startsWith(key.slice(0, key.length));
}

function el(name, attrs = {}, text) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function html(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'testid') node.dataset.testid = v;
    else node.setAttribute(k, String(v));
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Round numbers for an axis from 0 (or the minimum, when below 0) to the maximum. */
function niceTicks(min, max, count = 4) {
  if (min === max) max = min + (Math.abs(min) || 1);
  const raw = (max - min) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) || raw;
  const ticks = [];
  for (let v = Math.floor(min / step) * step; v <= Math.ceil(max / step) * step + step / 2; v += step) {
    ticks.push(Number(v.toPrecision(12)));
  }
  return ticks;
}

/** Shorter x labels: drop a year all the labels share when they name days. */
function shortLabels(keys) {
  const years = new Set(keys.map((s) => s.slice(0, 4)));
  if (years.size === 1 && keys.every((s) => /^\d{4}-\d{2}-\d{2}$/.test(s))) return keys.map((s) => s.slice(5));
  return keys;
}

/**
 * The charts of an answer, as one `<figure data-testid="chart" data-kind>` holding a small chart per measure.
 * `label(c)` names column c, `format(c, v)` writes a value of it, `partialNote` marks a running last period.
 */
export function drawCharts(columns, rows, shape, { label, format, caption, width: wanted = 640, partialNote = null, compact }) {
  const figure = html('figure', { class: `chart chart-${shape.kind}`, testid: 'chart', 'data-kind': shape.kind });
  const ordered = shape.order.map((i) => rows[i]);
  for (const [s, c] of shape.measures.entries()) {
    const color = PALETTE[s % PALETTE.length];
    const box = html('div', { class: 'chart-panel', 'data-measure': columns[c] });
    box.append(html('p', { class: 'chart-title' }, label(c)));
    const opts = { label, format, color, width: wanted, partialNote, compact };
    box.append(shape.kind === 'bar' ? barChart(ordered, shape.x, c, opts) : lineChart(ordered, shape.x, c, opts));
    figure.append(box);
  }
  const cap = html('figcaption', {}, caption);
  if (partialNote) cap.append(html('span', { class: 'chart-partial', testid: 'chart-partial' }, ` · ${partialNote}`));
  figure.append(cap);
  return figure;
}

/** Horizontal bars in the answer's order (a ranking keeps its rank), each with its value written beside it. */
function barChart(rows, x, c, { label, format, color, width: wanted, compact }) {
  const width = Math.round(Math.max(280, Math.min(760, wanted || 640)));
  const bar = 22;
  const gap = 8;
  const labelW = Math.min(160, Math.round(width * 0.28));
  const valueW = 96;
  const height = rows.length * (bar + gap) + gap;
  const values = rows.map((r) => toNumber(r[c]) ?? 0);
  const max = Math.max(0, ...values);
  const min = Math.min(0, ...values);
  const plotW = width - labelW - valueW;
  const scale = (v) => ((v - min) / (max - min || 1)) * plotW;
  const svg = el('svg', {
    viewBox: `0 0 ${width} ${height}`,
    class: 'chart-svg',
    role: 'img',
    'aria-label': `${label(c)}: ${rows.map((r, i) => `${r[x]} ${format(c, values[i])}`).join('; ')}`,
  });
  rows.forEach((row, i) => {
    const top = gap + i * (bar + gap);
    const v = values[i];
    const g = el('g', { class: 'chart-bar', 'data-label': String(row[x]) });
    g.append(el('text', { x: labelW - 8, y: top + bar / 2 + 4, 'text-anchor': 'end', class: 'chart-tick' }, String(row[x] ?? '—')));
    const from = scale(Math.min(0, v));
    g.append(el('rect', { x: labelW + from, y: top, width: Math.max(1, Math.abs(scale(v) - scale(0))), height: bar, rx: 3, fill: color }));
    g.append(el('text', { x: labelW + Math.max(scale(v), scale(0)) + 6, y: top + bar / 2 + 4, class: 'chart-value' }, compact(c, v)));
    svg.append(g);
  });
  return svg;
}

/** One line in time order on its own axis; focusable, with a readout moved by arrows, taps and the pointer. */
function lineChart(rows, x, c, { label, format, color, width: wanted, partialNote, compact }) {
  const width = Math.round(Math.max(280, Math.min(760, wanted || 640)));
  const height = width < 480 ? 170 : 200;
  const pad = { left: 64, right: 34, top: 12, bottom: 30 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const keys = rows.map((r) => String(r[x] ?? ''));
  const values = rows.map((r) => toNumber(r[c]));
  const present = values.filter((v) => v !== null);
  const ticks = niceTicks(Math.min(0, ...present), Math.max(0, ...present));
  const [yMin, yMax] = [ticks[0], ticks[ticks.length - 1]];
  const y = (v) => pad.top + plotH - ((v - yMin) / (yMax - yMin || 1)) * plotH;
  const px = (i) => pad.left + (rows.length === 1 ? plotW / 2 : (i / (rows.length - 1)) * plotW);
  const wrap = html('div', { class: 'chart-line-wrap' });
  const readoutId = `readout-${Math.random().toString(36).slice(2, 9)}`;
  const svg = el('svg', {
    viewBox: `0 0 ${width} ${height}`,
    class: 'chart-svg',
    role: 'img',
    tabindex: '0',
    'aria-label': `${label(c)}: ${keys[0]} – ${keys[keys.length - 1]}`,
    'aria-describedby': readoutId,
  });
  for (const tick of ticks) {
    svg.append(el('line', { x1: pad.left, x2: width - pad.right, y1: y(tick), y2: y(tick), class: 'chart-grid-line' }));
    svg.append(el('text', { x: pad.left - 6, y: y(tick) + 4, 'text-anchor': 'end', class: 'chart-tick' }, compact(c, tick)));
  }
  const labels = shortLabels(keys);
  const every = Math.max(1, Math.ceil(rows.length / Math.max(2, Math.floor(plotW / 60))));
  // Evenly spaced from the newest key back, so the last label never crowds the one before it.
  labels.forEach((text, i) => {
    if ((labels.length - 1 - i) % every !== 0) return;
    svg.append(el('text', { x: px(i), y: height - 8, 'text-anchor': 'middle', class: 'chart-tick' }, text));
  });
  const last = rows.length - 1;
  let d = '';
  let pen = 'M';
  values.forEach((v, i) => {
    if (v === null) {
      pen = 'M';
      return;
    }
    // A running last period is drawn dashed, so that its smaller value does not read as a fall.
    if (partialNote && i === last) return;
    d += `${pen}${px(i).toFixed(1)},${y(v).toFixed(1)} `;
    pen = 'L';
  });
  svg.append(el('path', { d: d.trim(), fill: 'none', stroke: color, 'stroke-width': 2.5, class: 'chart-line' }));
  if (partialNote && last > 0 && values[last] !== null && values[last - 1] !== null) {
    const dash = `M${px(last - 1).toFixed(1)},${y(values[last - 1]).toFixed(1)} L${px(last).toFixed(1)},${y(values[last]).toFixed(1)}`;
    svg.append(el('path', { d: dash, fill: 'none', stroke: color, 'stroke-width': 2, 'stroke-dasharray': '5 4', class: 'chart-line-partial' }));
  }
  values.forEach((v, i) => {
    if (v === null) return;
    svg.append(el('circle', { cx: px(i).toFixed(1), cy: y(v).toFixed(1), r: 3, fill: '#fff', stroke: color, 'stroke-width': 2, class: 'chart-dot', 'data-x': keys[i] }));
  });
  const cursor = el('line', { x1: 0, x2: 0, y1: pad.top, y2: pad.top + plotH, class: 'chart-cursor', visibility: 'hidden' });
  svg.append(cursor);
  const readout = html('p', { class: 'chart-readout', id: readoutId, 'aria-live': 'polite', testid: 'chart-readout' }, '');
  let at = last;
  const show = (i) => {
    at = Math.max(0, Math.min(last, i));
    cursor.setAttribute('x1', px(at));
    cursor.setAttribute('x2', px(at));
    cursor.setAttribute('visibility', 'visible');
    const note = partialNote && at === last ? `（${partialNote}）` : '';
    readout.textContent = `${keys[at]} · ${label(c)}: ${values[at] === null ? '—' : format(c, values[at])}${note}`;
  };
  svg.addEventListener('keydown', (event) => {
    const moves = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: last };
    if (!(event.key in moves)) return;
    event.preventDefault();
    show(moves[event.key]);
  });
  svg.addEventListener('focus', () => show(at));
  const fromPointer = (event) => {
    const box = svg.getBoundingClientRect();
    const local = ((event.clientX - box.left) / (box.width || 1)) * width;
    show(Math.round(((local - pad.left) / (plotW || 1)) * last));
  };
  svg.addEventListener('pointermove', fromPointer);
  svg.addEventListener('pointerdown', fromPointer);
  wrap.append(svg, readout);
  return wrap;
}
