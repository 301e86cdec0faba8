// Numbers and names for people: column labels from the catalog (`x-columns`), thousands separators, units, the
// period an answer covers, the SQL that ran, and the headline sentence of a one-row answer.

/**
 * A column's label and unit: the catalog's `x-columns`, then labels the answer carries (by name, or by position `i`
 * when they are a list, as a metric tool's presentation is), else the name.
 */
export function columnInfo(name, catalogColumns, answerLabels, i) {
  const fromCatalog = catalogColumns && catalogColumns[name];
  if (fromCatalog) return { label: fromCatalog.label || name, unit: fromCatalog.unit || '' };
  const fromAnswer = answerLabels && (Array.isArray(answerLabels) ? answerLabels[i] : answerLabels[name]);
  if (typeof fromAnswer === 'string') return { label: fromAnswer, unit: '' };
  if (fromAnswer && typeof fromAnswer === 'object') return { label: fromAnswer.label || name, unit: fromAnswer.unit || '' };
  return { label: String(name), unit: '' };
}

/** The labels an answer carries itself (metric tools): `labels` as an object by column, or an array by position. */
export function answerLabels(outcome, columns) {
  const labels = outcome && (outcome.labels || outcome.column_labels || outcome.columnLabels);
  if (Array.isArray(labels)) {
    const out = {};
    columns.forEach((c, i) => {
      if (labels[i] !== undefined && labels[i] !== null) out[c] = labels[i];
    });
    return out;
  }
  return labels && typeof labels === 'object' ? labels : {};
}

/** A number with thousands separators and `decimals` decimals (default: none for integers, else at most two). */
export function formatNumber(value, locale, decimals) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return value === null || value === undefined ? '—' : String(value);
  const fixed = Number.isInteger(decimals);
  const digits = fixed ? decimals : Number.isInteger(value) ? 0 : 2;
  return new Intl.NumberFormat(locale, { maximumFractionDigits: digits, minimumFractionDigits: fixed ? digits : 0 }).format(value);
}

/** A fraction (a share, a rate of change) as a percentage: −0.1885 → −18.85%. */
export function formatPercent(value, locale) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return value === null || value === undefined ? '—' : String(value);
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 2 }).format(value);
}

/** Whether a metric presentation's column holds fractions shown as percentages (a share, a rate of change). */
export function isFractionColumn(presentationColumn) {
  return Boolean(presentationColumn) && (presentationColumn.kind === 'share' || presentationColumn.kind === 'rate');
}

/** The decimals a column is shown with, the same on every row: as many as its values use, at most two. */
export function columnDecimals(rows, c) {
  let most = 0;
  for (const row of rows) {
    const v = row[c];
    if (typeof v !== 'number' || Number.isInteger(v)) continue;
    const text = String(v);
    const dot = text.indexOf('.');
    most = Math.max(most, dot === -1 ? 2 : Math.min(2, text.length - dot - 1));
  }
  return most;
}

/**
 * The decimals of a column: none when every value is whole (2,406,672, the same amount in every tool), else the
 * catalog's declared decimals, else as many as the values use.
 */
export function shownDecimals(declared, used) {
  if (used === 0) return 0;
  return Number.isInteger(declared) ? declared : used;
}

/** A short number for chart axes (1.2万 / 1.2M). */
export function compactNumber(value, locale) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  return new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 }).format(value);
}

/** The step of a trace named `name`, if any. */
export function step(trace, name) {
  const steps = trace && Array.isArray(trace.steps) ? trace.steps : [];
  return steps.find((s) => s && s.step === name) || null;
}

/** What the execute step sent (`detail`: `kind` sql, metric, http…), if the trace has it. */
function detailOf(trace) {
  const execute = step(trace, 'execute');
  return (execute && execute.output && execute.output.detail) || null;
}

/** A metric tool's presentation (column labels and units, a headline, a chart hint), if the answer has one. */
export function presentationOf(trace) {
  const detail = detailOf(trace);
  return detail && detail.kind === 'metric' && detail.presentation ? detail.presentation : null;
}

/** Bound values as `{ name, value }`: named ones as they are, positional ones numbered. */
function namedBinds(binds) {
  return (Array.isArray(binds) ? binds : []).map((b, i) => (b && typeof b === 'object' && 'name' in b ? b : { name: `?${i + 1}`, value: b }));
}

/** What ran for an SQL or metric tool: `{ sql, binds }` from the trace's execute step, else the fallback's SQL. */
export function executedSql(trace, outcome) {
  const detail = detailOf(trace);
  if (detail && detail.kind === 'sql' && typeof detail.sql === 'string') {
    return { sql: detail.sql, binds: namedBinds(detail.binds), dialect: detail.dialect || '' };
  }
  if (detail && detail.kind === 'metric' && Array.isArray(detail.statements) && detail.statements.length) {
    const sql = detail.statements.map((s) => String(s.sql || '')).join(';\n\n');
    return { sql, binds: detail.statements.flatMap((s) => namedBinds(s.binds)), dialect: detail.dialect || '' };
  }
  if (outcome && typeof outcome.sql === 'string' && outcome.sql) return { sql: outcome.sql, binds: [], dialect: '' };
  return null;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The date range an answer covers: bound `…start`/`…end` dates, a metric statement's period, or — `all` — the span of
 * the data a query over no period read; else the checked dates; null when none.
 */
export function periodOf(trace) {
  const ran = executedSql(trace, null);
  if (ran) {
    const start = ran.binds.find((b) => /start$/i.test(String(b.name)) && DAY.test(String(b.value)));
    const end = ran.binds.find((b) => /end$/i.test(String(b.name)) && DAY.test(String(b.value)));
    if (start && end) return { start: start.value, end: end.value };
  }
  const detail = detailOf(trace);
  const metricPeriod = detail && Array.isArray(detail.statements) && detail.statements[0] && /(\d{4}-\d{2}-\d{2})\D+(\d{4}-\d{2}-\d{2})/.exec(String(detail.statements[0].period || ''));
  if (metricPeriod) return { start: metricPeriod[1], end: metricPeriod[2] };
  // A metric query over no period: the first and last day of the data it read (all the data).
  const span = detail && detail.span;
  if (span && DAY.test(String(span.start)) && DAY.test(String(span.end))) return { start: span.start, end: span.end, all: true };
  const check = step(trace, 'check');
  const dates = check && check.output && check.output.dates;
  if (dates && DAY.test(String(dates.start)) && DAY.test(String(dates.end))) return { start: dates.start, end: dates.end };
  return null;
}

/** The entity the resolve step chose (`{ id, name }`), if the question named one. */
export function resolvedEntity(trace) {
  const resolve = step(trace, 'resolve');
  const output = (resolve && resolve.output) || {};
  const entity = output.entity;
  if (entity && entity.id !== undefined && entity.name) return entity;
  // A subject the person chose: its name is the step's input, its ID the one value given to the tool.
  const values = Object.values(output);
  const name = resolve && resolve.input && resolve.input.name;
  return name && values.length === 1 && (typeof values[0] === 'number' || typeof values[0] === 'string') ? { id: values[0], name } : null;
}

/** The day the question was asked about ("today" of the route step), if the trace says. */
export function todayOf(trace) {
  const route = step(trace, 'route');
  const today = route && route.input && route.input.today;
  return DAY.test(String(today)) ? today : null;
}

/** SQL split into keyword / string / number / other pieces, for highlighting with spans (no HTML is parsed). */
export function sqlTokens(sql) {
  const pattern = /('(?:[^']|'')*')|(\b\d+(?:\.\d+)?\b)|(\b(?:SELECT|FROM|WHERE|AND|OR|NOT|NULL|IS|IN|AS|ON|JOIN|LEFT|RIGHT|INNER|OUTER|GROUP|BY|ORDER|LIMIT|OFFSET|HAVING|CASE|WHEN|THEN|ELSE|END|SUM|COUNT|AVG|MIN|MAX|COALESCE|DISTINCT|BETWEEN|DESC|ASC|WITH|UNION|ALL|LIKE|SUBSTR)\b)/gi;
  const out = [];
  let last = 0;
  for (const m of sql.matchAll(pattern)) {
    if (m.index > last) out.push({ kind: 'text', text: sql.slice(last, m.index) });
    out.push({ kind: m[1] ? 'string' : m[2] ? 'number' : 'keyword', text: m[0] });
    last = m.index + m[0].length;
  }
  if (last < sql.length) out.push({ kind: 'text', text: sql.slice(last) });
  return out;
}

/** Rows as tab-separated text (for pasting into a spreadsheet), with a header line of labels. */
export function tsv(labels, rows) {
  const cell = (v) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)).replace(/[\t\r\n]+/g, ' ');
  return [labels.map(cell).join('\t'), ...rows.map((r) => r.map(cell).join('\t'))].join('\n');
}
