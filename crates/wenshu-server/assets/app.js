// The wenshu page: a chat over POST /api/ask, with the steps streamed while a question runs.
// Plain ES module, no framework, no build step.

import { t, stepName, setLanguage, language, initialLanguage, saveLanguage } from './i18n.js';
import { trendOf, lineChart } from './chart.js';

const ROW_CAP = 10;

const state = {
  conversationId: null,
  rounds: [],
  busy: false,
  generation: 0, // bumped by "new conversation": answers of an older conversation are dropped
  tools: new Map(), // name -> {name, title, description, enabled, kind}
  nextId: 1,
};

const $ = (id) => document.getElementById(id);
const els = {};

// ---------------------------------------------------------------- small DOM helpers

/** h('tag', {attrs, dataset via data-*, on* listeners}, ...children) */
function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'testid') node.dataset.testid = value;
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (value === true) node.setAttribute(key, '');
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function uid(prefix) {
  state.nextId += 1;
  return `${prefix}-${state.nextId}`;
}

function formatMs(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

function cellText(value) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function shortId(id) {
  const s = String(id);
  return s.length > 10 ? `${s.slice(0, 8)}…` : s;
}

function json(value) {
  try {
    return JSON.stringify(value, null, 2);
  } catch (_) {
    return String(value);
  }
}

// ---------------------------------------------------------------- the API

const KEY_STORAGE = 'wenshu.apiKey';

function apiKey() {
  try {
    return sessionStorage.getItem(KEY_STORAGE) || '';
  } catch (_) {
    return '';
  }
}

/** Request headers: JSON, what to accept, and the API key when the server asked for one. */
function apiHeaders(accept, json = false) {
  const headers = { Accept: accept };
  if (json) headers['Content-Type'] = 'application/json';
  const key = apiKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  return headers;
}

class ApiError extends Error {
  constructor(message, code, status, detail) {
    super(message);
    this.code = code;
    this.status = status;
    this.detail = detail;
  }
}

function errorFromBody(body, status) {
  const err = body && typeof body === 'object' ? body.error ?? body : null;
  if (err && typeof err === 'object') {
    return new ApiError(err.message || t('errorTitle'), err.code, status, err);
  }
  if (typeof err === 'string') return new ApiError(err, undefined, status);
  return new ApiError(status ? `HTTP ${status}` : t('networkError'), undefined, status);
}

async function readJson(res) {
  const text = await res.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch (_) {
    body = null;
  }
  if (!res.ok) {
    if (body) throw errorFromBody(body, res.status);
    throw new ApiError(text.trim().slice(0, 300) || `HTTP ${res.status}`, undefined, res.status);
  }
  if (body === null) throw new ApiError(t('errorTitle'), undefined, res.status);
  return body;
}

async function askPlain(payload) {
  let res;
  try {
    res = await fetch('/api/ask', {
      method: 'POST',
      headers: apiHeaders('application/json', true),
      body: JSON.stringify(payload),
    });
  } catch (_) {
    throw new ApiError(t('networkError'));
  }
  return readJson(res);
}

/** Server-sent events from a fetch body: yields {event, data} (data as text). */
async function* sseEvents(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const parse = (block) => {
    let event = 'message';
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (!line || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    return data.length ? { event, data: data.join('\n') } : null;
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let match;
      while ((match = /\r?\n\r?\n/.exec(buffer))) {
        const block = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        const ev = parse(block);
        if (ev) yield ev;
      }
    }
    buffer += decoder.decode();
    const last = parse(buffer);
    if (last) yield last;
  } finally {
    reader.releaseLock();
  }
}

/**
 * Ask with `Accept: text/event-stream`, calling `onStep` for each finished step; falls back to plain JSON
 * when the stream cannot be opened or ends without an answer.
 */
async function ask(payload, onStep) {
  let res;
  try {
    res = await fetch('/api/ask', {
      method: 'POST',
      headers: apiHeaders('text/event-stream', true),
      body: JSON.stringify(payload),
    });
  } catch (_) {
    return askPlain(payload);
  }
  const type = res.headers.get('content-type') || '';
  if (!res.ok || !type.includes('text/event-stream') || !res.body) return readJson(res);

  let answer = null;
  let failure = null;
  try {
    for await (const ev of sseEvents(res.body)) {
      let data;
      try {
        data = JSON.parse(ev.data);
      } catch (_) {
        continue;
      }
      if (ev.event === 'step') onStep(data);
      else if (ev.event === 'answer') answer = data;
      else if (ev.event === 'error') failure = errorFromBody(data, res.status);
    }
  } catch (_) {
    /* the stream broke: fall through */
  }
  if (answer) return answer;
  if (failure) throw failure;
  return askPlain(payload);
}

async function loadTools() {
  try {
    const res = await fetch('/api/tools', { headers: apiHeaders('application/json') });
    if (!res.ok) return;
    const body = await res.json();
    for (const tool of body.tools || []) state.tools.set(tool.name, tool);
    if (state.rounds.length) renderAll();
  } catch (_) {
    /* the tool titles are a nicety */
  }
}

// ---------------------------------------------------------------- rounds

function newRound(question, extra = {}) {
  return {
    id: uid('round'),
    question,
    subjectId: extra.subjectId ?? null,
    chosenLabel: extra.chosenLabel ?? null,
    status: 'running',
    liveSteps: [],
    answer: null,
    error: null,
    chosen: null,
    ui: { showAll: false, traceOpen: false, fallbackOpen: false },
  };
}

async function submit(question, extra = {}) {
  question = String(question || '').trim();
  if (!question || state.busy) return;
  const round = newRound(question, extra);
  state.rounds.push(round);
  const generation = state.generation;
  setBusy(true);
  renderAll();
  scrollToRound(round, 'end');

  const payload = { question };
  if (state.conversationId) payload.conversationId = state.conversationId;
  if (round.subjectId !== null && round.subjectId !== undefined) payload.subjectId = String(round.subjectId);

  try {
    const answer = await ask(payload, (step) => {
      if (generation !== state.generation) return;
      round.liveSteps.push(step);
      appendLiveStep(round, step);
    });
    round.answer = answer;
    if (generation === state.generation && answer && answer.conversationId) {
      state.conversationId = answer.conversationId;
    }
  } catch (err) {
    round.error = err instanceof ApiError ? err : new ApiError(String(err && err.message ? err.message : err));
    // The server no longer knows this conversation (e.g. it restarted): the next question starts a new one.
    if (round.error.code === 'unknown_conversation' && generation === state.generation) state.conversationId = null;
  }
  round.status = 'done';
  if (generation !== state.generation) return;
  setBusy(false);
  renderRound(round);
  renderHeader();
  scrollToRound(round, 'start');
  els.input.focus();
}

function setBusy(busy) {
  state.busy = busy;
  els.ask.disabled = busy;
  els.ask.textContent = busy ? t('asking') : t('ask');
  els.composer.setAttribute('aria-busy', busy ? 'true' : 'false');
}

function scrollToRound(round, block) {
  const node = document.querySelector(`[data-round-id="${round.id}"]`);
  if (!node) return;
  const target = block === 'start' ? node.querySelector('.answer') || node : node;
  target.scrollIntoView({ block: block === 'start' ? 'nearest' : 'end', behavior: 'smooth' });
}

function newConversation() {
  state.generation += 1;
  state.conversationId = null;
  state.rounds = [];
  setBusy(false);
  els.input.value = '';
  renderAll();
  renderHeader();
  els.input.focus();
}

// ---------------------------------------------------------------- rendering

function renderHeader() {
  const id = state.conversationId;
  els.conversation.textContent = id ? t('conversation', shortId(id)) : t('noConversation');
  els.conversation.title = id || '';
  els.conversation.dataset.conversationId = id || '';
}

function renderStatic() {
  document.documentElement.lang = t('htmlLang');
  document.title = `${t('title')} · wenshu`;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  els.input.placeholder = t('questionPlaceholder');
  els.lang.textContent = t('switchLanguage');
  els.lang.setAttribute('aria-label', t('switchLanguageLabel'));
  els.ask.textContent = state.busy ? t('asking') : t('ask');
  els.examples.replaceChildren(
    ...t('examples').map((q) => h('button', { type: 'button', class: 'chip', onclick: () => submit(q) }, q)),
  );
  renderHeader();
}

function renderAll() {
  els.empty.hidden = state.rounds.length > 0;
  els.rounds.replaceChildren(...state.rounds.map(roundElement));
}

function renderRound(round) {
  const old = document.querySelector(`[data-round-id="${round.id}"]`);
  const fresh = roundElement(round);
  if (old) old.replaceWith(fresh);
  else els.rounds.append(fresh);
}

function roundElement(round) {
  const li = h('li', { class: 'round', 'data-round-id': round.id });
  li.append(
    h(
      'div',
      { class: 'bubble user', testid: 'question' },
      h('span', { class: 'who visually-hidden' }, `${t('you')}: `),
      h('span', { class: 'question-text' }, round.question),
      round.chosenLabel ? h('span', { class: 'chosen-note' }, t('chose', round.chosenLabel)) : null,
    ),
  );
  if (round.status === 'running') li.append(pendingElement(round));
  else if (round.error) li.append(errorElement(round));
  else li.append(answerElement(round));
  return li;
}

function liveStepItem(step) {
  return h(
    'li',
    { class: 'live-step', testid: 'live-step', 'data-step': step.step },
    h('span', { class: 'step-name' }, stepName(step.step)),
    h('span', { class: 'step-decision' }, step.decision ?? ''),
    h('span', { class: 'step-time' }, formatMs(step.duration_ms)),
  );
}

function pendingElement(round) {
  return h(
    'section',
    { class: 'answer pending', testid: 'pending', 'aria-busy': 'true' },
    h('p', { class: 'running' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), t('running')),
    h('ol', { class: 'live-steps', 'aria-label': t('stepsSoFar') }, round.liveSteps.map(liveStepItem)),
  );
}

function appendLiveStep(round, step) {
  const list = document.querySelector(`[data-round-id="${round.id}"] .live-steps`);
  if (list) list.append(liveStepItem(step));
}

function errorElement(round) {
  const err = round.error;
  const section = h(
    'section',
    { class: 'answer error', testid: 'answer', 'data-kind': 'error', 'data-code': err.code || '', role: 'alert' },
    h('p', { class: 'error-title' }, t('errorTitle')),
    h('p', { class: 'error-message', testid: 'error-message' }, err.message),
    err.code ? h('p', { class: 'muted small' }, t('errorCode', err.code)) : null,
  );
  if (err.code === 'unknown_conversation') section.append(h('p', { class: 'small' }, t('conversationGone')));
  if (err.status === 401 && round === state.rounds[state.rounds.length - 1]) section.append(keyForm(round));
  return section;
}

/** Asks for an API key (kept for this browser session) and asks the question again. */
function keyForm(round) {
  const inputId = `${round.id}-key`;
  const input = h('input', { id: inputId, type: 'password', autocomplete: 'off', class: 'key-input', testid: 'api-key-input' });
  const form = h(
    'form',
    { class: 'key-form' },
    h('label', { for: inputId }, t('apiKeyLabel')),
    input,
    h('button', { type: 'submit', class: 'button primary' }, t('apiKeySave')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) return;
    try {
      sessionStorage.setItem(KEY_STORAGE, key);
    } catch (_) {
      /* ignore */
    }
    loadTools();
    submit(round.question, { subjectId: round.subjectId, chosenLabel: round.chosenLabel });
  });
  return form;
}

function normalize(answer) {
  const outcome = answer.outcome || {};
  return {
    kind: answer.kind || outcome.kind,
    tool: answer.tool ?? outcome.tool ?? null,
    params: answer.params ?? outcome.params ?? null,
    rewritten: answer.rewrittenQuestion ?? answer.rewritten_question ?? '',
    outcome,
    trace: answer.trace || null,
    traceId: answer.traceId ?? null,
    turnId: answer.turnId ?? null,
  };
}

function answerElement(round) {
  const a = normalize(round.answer);
  const section = h('section', {
    class: `answer kind-${a.kind}`,
    testid: 'answer',
    'data-kind': a.kind,
    'data-tool': a.tool || '',
    'data-trace-id': a.traceId || '',
    'data-streamed': round.liveSteps.length ? 'true' : 'false',
  });

  // What was understood, and which tool.
  const meta = h('div', { class: 'meta' });
  // 理解为 is the call that ran, written by the server from the bound call; the rewritten question stays in the trace.
  const called = a.kind === 'answered' && a.outcome.understood ? a.outcome.understood[language()] || a.outcome.understood.zh : null;
  const understood = called || a.rewritten;
  if (understood) {
    meta.append(h('p', { class: 'understood', testid: 'understood-line', 'data-from-call': called ? 'true' : 'false' }, h('span', { class: 'label' }, t('understood')), understood));
  }
  const fellBack = a.kind === 'answered' ? a.outcome.fell_back : null;
  if (a.tool) {
    const tool = state.tools.get(a.tool);
    const line = h(
      'p',
      { class: 'tool-line', testid: 'tool-line' },
      h('span', { class: 'label' }, t('tool')),
      h('code', { class: 'tool-name' }, a.tool),
      tool && tool.title && tool.title !== a.tool ? h('span', { class: 'tool-title' }, tool.title) : null,
    );
    if (fellBack) line.append(' ', fallbackBadge(round, fellBack));
    meta.append(line);
  } else if (fellBack) {
    meta.append(h('p', { class: 'tool-line' }, fallbackBadge(round, fellBack)));
  }
  const params = a.params && typeof a.params === 'object' ? Object.entries(a.params) : [];
  if (params.length && a.kind === 'answered') {
    meta.append(
      h(
        'p',
        { class: 'params' },
        h('span', { class: 'label' }, t('params')),
        params.map(([k, v]) => h('span', { class: 'param' }, h('span', { class: 'param-key' }, k), '=', cellText(v))),
      ),
    );
  }
  if (fellBack) {
    const reasonId = `${round.id}-fallback`;
    meta.append(
      h(
        'p',
        { class: 'fallback-reason', id: reasonId, testid: 'fallback-reason', hidden: !round.ui.fallbackOpen },
        h('span', { class: 'label' }, t('fallbackReason')),
        fellBack,
      ),
    );
  }
  section.append(meta);

  switch (a.kind) {
    case 'answered':
      section.append(answeredBody(round, a.outcome));
      break;
    case 'choose':
      section.append(chooseBody(round, a.outcome));
      break;
    case 'need':
      section.append(needBody(a.outcome));
      break;
    case 'stopped':
      section.append(stoppedBody(a.outcome));
      break;
    default:
      section.append(h('pre', { class: 'raw' }, json(a.outcome)));
  }

  if (a.trace && Array.isArray(a.trace.steps)) section.append(traceArea(round, a));
  return section;
}

function fallbackBadge(round, reason) {
  const reasonId = `${round.id}-fallback`;
  const button = h(
    'button',
    {
      type: 'button',
      class: 'badge fallback',
      testid: 'fallback-badge',
      title: reason,
      'aria-expanded': round.ui.fallbackOpen ? 'true' : 'false',
      'aria-controls': reasonId,
      'aria-label': `${t('fallbackBadge')}: ${t('fallbackBadgeTitle')}`,
    },
    t('fallbackBadge'),
  );
  button.addEventListener('click', () => {
    round.ui.fallbackOpen = !round.ui.fallbackOpen;
    button.setAttribute('aria-expanded', String(round.ui.fallbackOpen));
    const panel = document.getElementById(reasonId);
    if (panel) panel.hidden = !round.ui.fallbackOpen;
  });
  return button;
}

function answeredBody(round, outcome) {
  const body = h('div', { class: 'body' });
  if (outcome.summary) body.append(h('p', { class: 'summary', testid: 'summary' }, outcome.summary));
  const columns = Array.isArray(outcome.columns) ? outcome.columns : [];
  const rows = Array.isArray(outcome.rows) ? outcome.rows : [];

  const trend = trendOf(columns, rows);
  if (trend) {
    const names = trend.series.map((c) => columns[c]).join('、');
    body.append(
      lineChart(columns, rows, trend, {
        locale: language() === 'zh' ? 'zh-CN' : 'en-US',
        caption: t('chartTitle', names),
        width: chartWidth(),
      }),
    );
  }

  if (columns.length) {
    const numeric = columns.map((_, c) => rows.length > 0 && rows.every((r) => r[c] === null || typeof r[c] === 'number'));
    const tableId = `${round.id}-table`;
    const table = h(
      'table',
      { class: 'result', testid: 'answer-table', id: tableId },
      h('thead', {}, h('tr', {}, columns.map((c, i) => h('th', { scope: 'col', class: numeric[i] ? 'num' : null }, c)))),
      h(
        'tbody',
        {},
        rows.map((row, r) =>
          h(
            'tr',
            { class: r >= ROW_CAP ? 'extra' : null, hidden: r >= ROW_CAP && !round.ui.showAll },
            columns.map((_, c) => {
              const v = Array.isArray(row) ? row[c] : undefined;
              return h('td', { class: [numeric[c] ? 'num' : '', v === null || v === undefined ? 'null' : ''].join(' ').trim() || null }, cellText(v));
            }),
          ),
        ),
      ),
    );
    body.append(h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('rowsCount', rows.length) }, table));

    const foot = h('p', { class: 'table-foot muted small' }, t('rowsCount', rows.length));
    if (rows.length > ROW_CAP) {
      const toggle = h(
        'button',
        { type: 'button', class: 'link', testid: 'show-all', 'aria-controls': tableId, 'aria-expanded': round.ui.showAll ? 'true' : 'false' },
        round.ui.showAll ? t('showFewer', ROW_CAP) : t('showAll', rows.length),
      );
      toggle.addEventListener('click', () => {
        round.ui.showAll = !round.ui.showAll;
        for (const tr of table.querySelectorAll('tr.extra')) tr.hidden = !round.ui.showAll;
        toggle.textContent = round.ui.showAll ? t('showFewer', ROW_CAP) : t('showAll', rows.length);
        toggle.setAttribute('aria-expanded', String(round.ui.showAll));
      });
      foot.append(' · ', toggle);
    }
    if (outcome.truncated) foot.append(' · ', h('span', { class: 'warn' }, t('truncated')));
    body.append(foot);
  } else if (!rows.length) {
    body.append(h('p', { class: 'muted' }, t('noRows')));
  }

  if (outcome.sql) {
    body.append(h('details', { class: 'sql-details' }, h('summary', {}, t('showSql')), h('pre', { class: 'sql', testid: 'answer-sql' }, outcome.sql)));
  }
  return body;
}

/** The width a chart is drawn at: the conversation's width less the answer's padding and the chart's frame. */
function chartWidth() {
  const width = els.rounds && els.rounds.clientWidth ? els.rounds.clientWidth : els.main?.clientWidth || 640;
  return width - 50;
}

let drawnWidth = 0;
function redrawOnResize() {
  let timer = null;
  drawnWidth = chartWidth();
  window.addEventListener('resize', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const width = chartWidth();
      if (Math.abs(width - drawnWidth) < 60) return;
      drawnWidth = width;
      for (const round of state.rounds) {
        if (round.status === 'done' && round.answer && !round.error) renderRound(round);
      }
    }, 150);
  });
}

function candidateLabel(entity) {
  const attrs = entity.attributes || {};
  const parts = [];
  if (attrs.year !== undefined && attrs.year !== null) parts.push(String(attrs.year));
  if (attrs.genre) parts.push(String(attrs.genre));
  if (!parts.length) {
    for (const [k, v] of Object.entries(attrs).slice(0, 2)) parts.push(`${k}: ${cellText(v)}`);
  }
  return { name: String(entity.name ?? entity.id), meta: parts.join(' · ') };
}

function chooseBody(round, outcome) {
  const candidates = Array.isArray(outcome.candidates) ? outcome.candidates : [];
  const body = h('div', { class: 'body choose' });
  body.append(h('p', { class: 'prompt', testid: 'choose-message' }, t('chooseIntro', outcome.name ?? '')));
  const list = h('div', { class: 'candidates', role: 'group', 'aria-label': t('chooseIntro', outcome.name ?? '') });
  for (const candidate of candidates) {
    const entity = candidate.entity || {};
    const { name, meta } = candidateLabel(entity);
    const chosen = round.chosen !== null && String(round.chosen) === String(entity.id);
    const button = h(
      'button',
      {
        type: 'button',
        class: `candidate${chosen ? ' chosen' : ''}`,
        testid: 'candidate-button',
        'data-subject-id': entity.id,
        'aria-pressed': chosen ? 'true' : 'false',
        disabled: round.chosen !== null || state.busy ? true : null,
        title: candidate.method ? `${candidate.method} · ${candidate.score ?? ''}` : null,
      },
      h('span', { class: 'candidate-name' }, name),
      meta ? h('span', { class: 'candidate-meta' }, meta) : null,
      chosen ? h('span', { class: 'candidate-chosen' }, `✓ ${t('candidateChosen')}`) : null,
    );
    button.addEventListener('click', () => {
      if (state.busy || round.chosen !== null) return;
      round.chosen = entity.id;
      renderRound(round);
      submit(round.question, { subjectId: entity.id, chosenLabel: meta ? `${name}（${meta}）` : name });
    });
    list.append(button);
  }
  body.append(list);
  return body;
}

function needBody(outcome) {
  const missing = Array.isArray(outcome.missing) ? outcome.missing : [];
  return h(
    'div',
    { class: 'body need', testid: 'need-message', role: 'status' },
    h('p', { class: 'prompt' }, t('needIntro')),
    h('ul', { class: 'missing' }, missing.map((m) => h('li', {}, h('code', {}, m)))),
    h('p', { class: 'muted small' }, t('needHint')),
  );
}

function stoppedBody(outcome) {
  const admin = outcome.audience === 'admin';
  const reasons = Array.isArray(outcome.reasons) ? outcome.reasons : [];
  return h(
    'div',
    { class: `body stopped${admin ? ' admin' : ''}`, testid: 'stop-message', 'data-audience': outcome.audience || 'user', role: 'status' },
    h(
      'p',
      { class: 'prompt' },
      h('span', { class: `badge ${admin ? 'admin' : 'user'}`, testid: 'stop-audience' }, admin ? t('forAdmin') : t('forUser')),
      ' ',
      t('stoppedAt', outcome.step ? stepName(outcome.step) : '?'),
    ),
    reasons.length ? h('p', { class: 'label' }, t('stoppedWhy')) : null,
    reasons.length ? h('ul', { class: 'reasons' }, reasons.map((r) => h('li', {}, r))) : null,
  );
}

// ---------------------------------------------------------------- trace

function traceArea(round, a) {
  const traceId = `${round.id}-trace`;
  const wrap = h('div', { class: 'trace-area' });
  const toggle = h(
    'button',
    { type: 'button', class: 'link trace-toggle', testid: 'trace-toggle', 'aria-expanded': round.ui.traceOpen ? 'true' : 'false', 'aria-controls': traceId },
    round.ui.traceOpen ? t('traceHide') : t('traceShow'),
  );
  let panel = null;
  const show = () => {
    if (!panel) {
      panel = traceElement(a, traceId);
      wrap.append(panel);
    }
    panel.hidden = !round.ui.traceOpen;
    toggle.textContent = round.ui.traceOpen ? t('traceHide') : t('traceShow');
    toggle.setAttribute('aria-expanded', String(round.ui.traceOpen));
  };
  toggle.addEventListener('click', () => {
    round.ui.traceOpen = !round.ui.traceOpen;
    show();
  });
  wrap.append(toggle);
  if (round.ui.traceOpen) show();
  return wrap;
}

function traceElement(a, id) {
  const steps = a.trace.steps;
  const total = steps.reduce((sum, s) => sum + (typeof s.duration_ms === 'number' ? s.duration_ms : 0), 0);
  const head = [t('traceEngine', a.trace.engine ?? '?'), t('traceTotal', formatMs(total))];
  if (a.traceId) head.push(`trace ${a.traceId}`);
  return h(
    'div',
    { class: 'trace', id, testid: 'trace' },
    h('p', { class: 'trace-head muted small' }, head.join(' · ')),
    h('ol', { class: 'steps' }, steps.map(stepElement)),
  );
}

function stepElement(step) {
  const li = h(
    'li',
    { class: `step step-${step.step}`, testid: 'trace-step', 'data-step': step.step },
    h(
      'div',
      { class: 'step-head' },
      h('span', { class: 'step-name' }, stepName(step.step)),
      h('span', { class: 'step-decision' }, step.decision ?? ''),
      h('span', { class: 'step-time' }, formatMs(step.duration_ms)),
      step.tokens ? h('span', { class: 'step-tokens' }, t('tokens', step.tokens)) : null,
    ),
  );
  if (step.step === 'fallback' && step.output && typeof step.output === 'object') li.append(fallbackDetails(step.output));

  const pre = h('pre', { class: 'raw-json', testid: 'step-json' });
  const details = h('details', { class: 'raw' }, h('summary', {}, t('rawShow')), pre);
  details.addEventListener('toggle', () => {
    if (details.open && !pre.textContent) pre.textContent = json(step);
  });
  li.append(details);
  return li;
}

function fallbackDetails(output) {
  const attempts = Array.isArray(output.attempts) ? output.attempts : [];
  const box = h('div', { class: 'fallback-run', testid: 'fallback-run' });
  attempts.forEach((attempt, i) => {
    const verdict = attempt.verdict || null;
    const item = h(
      'div',
      { class: `attempt ${verdict && verdict.allowed && !attempt.error ? 'ok' : 'refused'}`, testid: 'sql-attempt' },
      h('p', { class: 'attempt-title' }, t('attempt', i + 1), i > 0 ? t('correction') : ''),
      attempt.explanation ? h('p', { class: 'small' }, h('span', { class: 'label' }, t('explanation')), attempt.explanation) : null,
      attempt.sql ? h('pre', { class: 'sql' }, attempt.sql) : null,
    );
    if (verdict) {
      item.append(
        h('p', { class: `verdict ${verdict.allowed ? 'ok' : 'refused'}`, testid: 'guard-verdict' }, verdict.allowed ? `✓ ${t('guardAllowed')}` : `✗ ${t('guardRefused')}`),
      );
      if (Array.isArray(verdict.reasons) && verdict.reasons.length) {
        item.append(h('ul', { class: 'reasons small' }, verdict.reasons.map((r) => h('li', {}, r))));
      }
      const facts = [];
      if (Array.isArray(verdict.tables) && verdict.tables.length) facts.push(`${t('guardTables')}${verdict.tables.join(', ')}`);
      if (verdict.limit !== undefined && verdict.limit !== null) facts.push(`${t('guardLimit')}${verdict.limit}`);
      if (facts.length) item.append(h('p', { class: 'muted small' }, facts.join(' · ')));
      if (verdict.sql && verdict.sql !== attempt.sql) {
        item.append(h('p', { class: 'muted small' }, t('guardSql')), h('pre', { class: 'sql guarded' }, verdict.sql));
      }
    }
    if (attempt.error) item.append(h('p', { class: 'attempt-error small' }, h('span', { class: 'label' }, t('attemptError')), attempt.error));
    box.append(item);
  });
  if (output.final_sql) box.append(h('p', { class: 'label' }, t('finalSql')), h('pre', { class: 'sql final' }, output.final_sql));
  const rows = output.rows && Array.isArray(output.rows.rows) ? output.rows.rows.length : null;
  box.append(h('p', { class: 'muted small' }, rows === null ? t('fallbackNoRows') : t('fallbackRows', rows)));
  if (Array.isArray(output.reasons) && output.reasons.length) box.append(h('ul', { class: 'reasons small' }, output.reasons.map((r) => h('li', {}, r))));
  return box;
}

// ---------------------------------------------------------------- start

function start() {
  els.input = $('question');
  els.ask = $('ask');
  els.composer = $('composer');
  els.rounds = $('rounds');
  els.empty = $('empty');
  els.examples = $('examples');
  els.lang = $('language-toggle');
  els.conversation = $('conversation-id');

  setLanguage(initialLanguage());
  renderStatic();
  renderAll();

  els.composer.addEventListener('submit', (event) => {
    event.preventDefault();
    const question = els.input.value.trim();
    if (!question || state.busy) return;
    els.input.value = '';
    submit(question);
  });
  els.lang.addEventListener('click', () => {
    const next = language() === 'zh' ? 'en' : 'zh';
    setLanguage(next);
    saveLanguage(next);
    renderStatic();
    renderAll();
  });
  $('new-conversation').addEventListener('click', newConversation);

  redrawOnResize();
  document.body.dataset.ready = 'true';
  els.input.focus();
  loadTools();
}

start();
