// The wenshu page: a chat over POST /api/ask, with the steps streamed while a question runs.
// Plain ES module, no framework, no build step.

import { t, stepName, setLanguage, language, initialLanguage, saveLanguage } from './i18n.js';
import { shapeOf, drawCharts, partialPeriod } from './chart.js';
import { columnInfo, answerLabels, formatNumber, formatPercent, isFractionColumn, columnDecimals, shownDecimals, compactNumber, executedSql, periodOf, presentationOf, resolvedEntity, todayOf, sqlTokens, tsv, step as traceStep } from './format.js';

const ROW_CAP = 10;

const state = {
  conversationId: null,
  rounds: [],
  busy: false,
  generation: 0, // bumped by "new conversation": answers of an older conversation are dropped
  tools: new Map(), // name -> {name, title, description, enabled, kind}
  catalog: [], // [{name, title, description, examples, columns}] from GET /api/catalog
  maxQuestionChars: 500,
  today: null, // the server's day, from GET /api/catalog
  conversations: [], // the principal's list, newest first
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

/** One JSON API call (`body` sent as JSON when given); the parsed body, or null for 204. */
async function api(method, path, body) {
  let res;
  try {
    res = await fetch(path, { method, headers: apiHeaders('application/json', body !== undefined), body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (_) {
    throw new ApiError(t('networkError'));
  }
  if (res.status === 204) return null;
  return readJson(res);
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
    allRows: extra.allRows === true,
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
  els.empty.querySelector('[data-testid="notice"]')?.remove();
  state.rounds.push(round);
  const generation = state.generation;
  setBusy(true);
  renderAll();
  scrollToRound(round, 'end');

  const payload = { question };
  if (state.conversationId) payload.conversationId = state.conversationId;
  if (round.subjectId !== null && round.subjectId !== undefined) payload.subjectId = String(round.subjectId);
  if (round.allRows) payload.allRows = true;

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
    // A question the server refused is given back to the box, to fix and send again.
    if (round.error.status >= 400 && round.error.status < 500 && !els.input.value) {
      els.input.value = question;
      updateCounter();
    }
  }
  round.status = 'done';
  if (generation !== state.generation) return;
  syncUrl();
  refreshConversations();
  setBusy(false);
  renderRound(round);
  // Candidates drawn while this question ran were disabled: draw them again, choosable.
  for (const other of state.rounds) if (other !== round && other.answer && other.answer.kind === 'choose') renderRound(other);
  renderHeader();
  scrollToRound(round, 'start');
  els.input.focus();
  return round;
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
  updateCounter();
  syncUrl();
  renderAll();
  renderHeader();
  renderConversations();
  els.input.focus();
}

// ---------------------------------------------------------------- rendering

/** The header names the open conversation by its title (its first question), never by its id; nothing before one. */
function renderHeader() {
  const id = state.conversationId;
  const listed = id ? state.conversations.find((c) => c.id === id) : null;
  const first = state.rounds.length ? state.rounds[0].question : '';
  const title = (listed && listed.title) || first;
  els.conversation.textContent = id && title ? t('conversation', title) : '';
  els.conversation.hidden = !(id && title);
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
  renderExamples();
  renderHeader();
  renderConversations();
  updateCounter();
}

function renderAll() {
  els.empty.hidden = state.rounds.length > 0;
  els.rounds.replaceChildren(...state.rounds.map(roundElement));
}

function renderRound(round) {
  const old = document.querySelector(`[data-round-id="${round.id}"]`);
  const fresh = roundElement(round);
  if (!old) {
    els.rounds.append(fresh);
    return;
  }
  // A redraw (a new width) keeps where the reader was: each table's sideways scroll, and the focus.
  const scrolled = [...old.querySelectorAll('.table-wrap')].map((n) => n.scrollLeft);
  const focusable = 'button, a[href], textarea, input, [tabindex]';
  const focused = old.contains(document.activeElement) ? [...old.querySelectorAll(focusable)].indexOf(document.activeElement) : -1;
  old.replaceWith(fresh);
  fresh.querySelectorAll('.table-wrap').forEach((n, i) => {
    if (scrolled[i]) n.scrollLeft = scrolled[i];
  });
  if (focused >= 0) {
    const target = fresh.querySelectorAll(focusable)[focused];
    if (target) target.focus({ preventScroll: true });
  }
}

function roundElement(round) {
  // The round carries its answer's link target (turn-…): a link opens at the question, not below it.
  const turnId = round.answer && round.answer.turnId;
  const li = h('li', { class: 'round', 'data-round-id': round.id, id: turnId ? `turn-${turnId}` : null });
  li.append(
    h(
      'div',
      { class: 'bubble user', testid: 'question' },
      h('span', { class: 'who visually-hidden' }, `${t('you')}: `),
      h('span', { class: 'question-text' }, round.question),
      round.chosenLabel ? h('span', { class: 'chosen-note' }, t('chose', round.chosenLabel)) : null,
    ),
  );
  // Element.append writes a null as the text "null": the edit link only once the round is done.
  if (round.status === 'done') {
    li.append(h('button', { type: 'button', class: 'link edit-question', testid: 'edit-question', onclick: () => editQuestion(round) }, t('editQuestion')));
  }
  if (round.status === 'running') li.append(pendingElement(round));
  else if (round.error) li.append(errorElement(round));
  else li.append(answerElement(round));
  return li;
}

/**
 * A trace step's decision in the page's language: the engine's Chinese wording where it gives one (the check step's
 * notes in Chinese, `notes_zh`, where its decision is only its English notes).
 */
function decisionText(step) {
  if (language() !== 'zh') return step.decision || '';
  const notes = step.output && Array.isArray(step.output.notes_zh) && step.output.notes_zh.length ? step.output.notes_zh.join('；') : null;
  return step.decision_zh || notes || step.decision || '';
}

function liveStepItem(step) {
  return h(
    'li',
    { class: 'live-step', testid: 'live-step', 'data-step': step.step },
    h('span', { class: 'step-name' }, stepName(step.step)),
    h('span', { class: 'step-decision' }, decisionText(step)),
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
    h('p', { class: 'error-message', testid: 'error-message' }, errorText(err)),
    err.code ? h('p', { class: 'muted small' }, t('errorCode', err.code), ' · ', err.message) : null,
    h('button', { type: 'button', class: 'button ghost retry', testid: 'retry', onclick: () => submit(round.question, { subjectId: round.subjectId, chosenLabel: round.chosenLabel }) }, t('retry')),
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
    conversationId: answer.conversationId ?? null,
  };
}

function answerElement(round) {
  const a = normalize(round.answer);
  const section = h('section', {
    class: `answer kind-${a.kind}`,
    'data-turn-id': a.turnId || '',
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
  // Why the fallback answered: the coded message in the page's language (older stored answers: the engine's words).
  const fellBack = a.kind === 'answered' ? (a.outcome.fell_back_message ? messageText(a.outcome.fell_back_message) : a.outcome.fell_back) : null;
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
  const params = shownParams(a);
  if (params.length && a.kind === 'answered') {
    meta.append(
      h(
        'p',
        { class: 'params' },
        h('span', { class: 'label' }, t('params')),
        params.map(([k, v]) => h('span', { class: 'param', title: typeof v === 'object' && v !== null ? JSON.stringify(v) : null }, h('span', { class: 'param-key' }, k), '=', paramText(a, k, v))),
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
      section.append(answeredBody(round, a.outcome, a));
      break;
    case 'choose':
      section.append(chooseBody(round, a.outcome));
      break;
    case 'need':
      section.append(needBody(a.outcome));
      break;
    case 'stopped':
      // Outside every tool: say so and list what can be asked, before the other reasons.
      if (isOutside(a)) section.append(scopeHelp(outsideMessage(a.outcome)));
      section.append(stoppedBody(a.outcome));
      // A tool that cannot run here: what can be asked instead.
      if (hasCode(a.outcome, 'tool.not_runnable')) section.append(scopeHelp(null, t('askInstead')));
      break;
    default:
      section.append(h('pre', { class: 'raw' }, json(a.outcome)));
  }

  if (a.trace && Array.isArray(a.trace.steps)) section.append(traceArea(round, a));
  if (a.turnId) section.append(answerTools(round, a));
  if (a.kind === 'answered') {
    const next = followUps(round, a);
    if (next) section.append(next);
  }
  return section;
}

/**
 * The parameters of a call as listed on the answer: of a SQL template, those its statement bound (a bind of the name,
 * or `name_…` as a period's start and end) and the one choosing the statement (the catalog's `selector`) — a limit a
 * one-row summary never reads is not listed —; of other tools, all.
 */
function shownParams(a) {
  const all = a.params && typeof a.params === 'object' ? Object.entries(a.params) : [];
  const execute = traceStep(a.trace, 'execute');
  const detail = execute && execute.output && execute.output.detail;
  if (!detail || detail.kind !== 'sql' || !Array.isArray(detail.binds) || !detail.binds.length) return all;
  const bound = detail.binds.map((b) => String((b && b.name) || ''));
  const tool = catalogTool(a.tool);
  const selector = tool && tool.selector;
  return all.filter(([k]) => k === selector || bound.some((name) => name === k || name.startsWith(`${k}_`)));
}

/** A parameter's value for people: the subject's name beside its ID (`满江红（ID 3）`), else the value. */
function paramText(a, key, value) {
  const tool = catalogTool(a.tool);
  const entity = tool && tool.subjectParam === key ? resolvedEntity(a.trace) : null;
  return entity && String(entity.id) === String(value) ? t('subjectWithId', entity.name, value) : valueText(value);
}

/**
 * A structured parameter value in words rather than JSON: a list joined, a named item by its name, a range as
 * start～end, any other object as its key: value pairs.
 */
function valueText(value) {
  if (value === null || value === undefined) return '—';
  if (Array.isArray(value)) return value.map(valueText).join(language() === 'zh' ? '、' : ', ');
  if (typeof value !== 'object') return String(value);
  const keys = Object.keys(value);
  if (typeof value.name === 'string' && keys.length === 1) return value.name;
  if (keys.length === 2 && 'start' in value && 'end' in value) return `${valueText(value.start)}～${valueText(value.end)}`;
  return keys.map((k) => `${k}: ${valueText(value[k])}`).join(' ');
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

function locale() {
  return language() === 'zh' ? 'zh-CN' : 'en-US';
}

/** The catalog entry of a tool (examples, column labels), if the catalog is loaded. */
function catalogTool(name) {
  return state.catalog.find((tool) => tool.name === name) || null;
}

/** A value of a column for people: separators, and the unit after it. */
function formatValue(info, value) {
  if (typeof value !== 'number') return cellText(value);
  if (info.percent) return formatPercent(value, locale());
  const text = formatNumber(value, locale(), info.decimals);
  return info.unit ? `${text} ${info.unit}` : text;
}

/** A column of months (every value YYYY-MM) is labelled as months, whatever day-column label the catalog gives it. */
function monthsNamed(info, rows, i) {
  const months = rows.length > 0 && rows.every((r) => typeof r[i] === 'string' && /^\d{4}-\d{2}$/.test(r[i]));
  return months && !/月|month/i.test(info.label) ? { ...info, label: t('monthColumn') } : info;
}

/** The period words of an answer: "2026-12-01 至 2026-12-31（截至 12-01）". */
function periodText(trace) {
  const period = periodOf(trace);
  if (!period) return '';
  const today = todayOf(trace);
  if (period.all) return t('allData', period.start, period.end);
  const upTo = today && today >= period.start && today < period.end ? t('upTo', today.slice(5)) : '';
  return `${t('periodRange', period.start, period.end)}${upTo}`;
}

function answeredBody(round, outcome, a) {
  const body = h('div', { class: 'body' });
  const columns = Array.isArray(outcome.columns) ? outcome.columns : [];
  const rows = Array.isArray(outcome.rows) ? outcome.rows : [];
  const tool = catalogTool(a.tool);
  const presentation = presentationOf(a.trace);
  const carried = presentation && Array.isArray(presentation.columns) ? presentation.columns : answerLabels(outcome, columns);
  const declaredDecimals = (i) => (presentation && presentation.columns && presentation.columns[i] ? presentation.columns[i].decimals : undefined);
  const fraction = (i) => isFractionColumn(presentation && presentation.columns ? presentation.columns[i] : null);
  const infos = columns.map((c, i) => ({
    ...monthsNamed(columnInfo(c, tool && tool.columns, carried, i), rows, i),
    decimals: shownDecimals(declaredDecimals(i), columnDecimals(rows, i)),
    percent: fraction(i),
  }));
  const numeric = columns.map((_, i) => rows.length > 0 && rows.every((r) => r[i] === null || typeof r[i] === 'number'));
  const period = periodText(a.trace);

  // One row: a headline in words, each measure with its unit, and the period.
  if (rows.length === 1 && numeric.some(Boolean)) {
    const row = rows[0];
    const names = columns.map((_, i) => i).filter((i) => !numeric[i]).map((i) => cellText(row[i]));
    const card = h('div', { class: 'headline', testid: 'headline' });
    // The server's headline sentence is Chinese (headline_en when it gives one); the values below are the page's own.
    const headlineText = presentation && (language() === 'zh' ? presentation.headline : presentation.headline_en);
    if (headlineText) card.append(h('p', { class: 'headline-text', testid: 'headline-text' }, headlineText));
    if (names.length) card.append(h('p', { class: 'headline-subject' }, names.join(' · ')));
    if (row.every((v) => v === null)) {
      // A period the data does not reach: said in words, never a bare —.
      if (!headlineText) card.append(h('p', { class: 'headline-text', testid: 'headline-text' }, t('noDataInPeriod')));
    } else {
      const values = h('dl', { class: 'headline-values' });
      columns.forEach((_, i) => {
        if (!numeric[i]) return;
        values.append(h('div', { class: 'headline-item' }, h('dt', {}, infos[i].label), h('dd', { testid: 'headline-value' }, formatValue(infos[i], row[i]))));
      });
      card.append(values);
    }
    if (period) card.append(h('p', { class: 'headline-period muted small', testid: 'headline-period' }, period));
    body.append(card);
  } else if (outcome.summary && !columns.length) {
    const summary = language() === 'en' && outcome.summary_en ? outcome.summary_en : outcome.summary;
    body.append(h('p', { class: 'summary', testid: 'summary' }, summary));
  } else if (period) {
    body.append(h('p', { class: 'period muted small', testid: 'answer-period' }, period));
  }

  const declared = (presentation && presentation.chart) || outcome.chart;
  const hint = declared && typeof declared === 'object' ? declared.kind || declared.type : declared;
  // The 合计 row under a series is read in the table, never drawn as one more point.
  const drawn = outcome.totaled ? rows.slice(0, -1) : rows;
  const shape = hint === 'number' ? null : shapeOf(columns, drawn, typeof hint === 'string' ? hint : null);
  if (shape) {
    const today = todayOf(a.trace);
    const lastKey = String(drawn[shape.order[shape.order.length - 1]][shape.x] ?? '');
    const partial = shape.kind === 'line' && partialPeriod(lastKey, today) ? t('upTo', today.slice(5)).trim().replace(/^[（(]|[）)]$/g, '') : null;
    body.append(
      drawCharts(columns, drawn, shape, {
        label: (c) => (infos[c].unit ? `${infos[c].label}（${infos[c].unit}）` : infos[c].label),
        format: (c, v) => formatValue(infos[c], v),
        compact: (c, v) => (infos[c] && infos[c].percent ? formatPercent(v, locale()) : compactNumber(v, locale())),
        caption: shape.kind === 'bar' ? t('chartBars', infos[shape.x].label) : t('chartLines', infos[shape.x].label),
        width: chartWidth(),
        partialNote: partial,
      }),
    );
  }

  if (columns.length && rows.length) {
    const tableId = `${round.id}-table`;
    const table = h(
      'table',
      { class: 'result', testid: 'answer-table', id: tableId },
      h('thead', {}, h('tr', {}, columns.map((c, i) => h('th', { scope: 'col', class: numeric[i] ? 'num' : null, 'data-column': c }, infos[i].unit ? `${infos[i].label}（${infos[i].unit}）` : infos[i].label)))),
      h(
        'tbody',
        {},
        rows.map((row, r) =>
          h(
            'tr',
            { class: r >= ROW_CAP ? 'extra' : null, hidden: r >= ROW_CAP && !round.ui.showAll },
            columns.map((_, c) => {
              const v = Array.isArray(row) ? row[c] : undefined;
              const text = typeof v === 'number' ? (infos[c].percent ? formatPercent(v, locale()) : formatNumber(v, locale(), infos[c].decimals)) : cellText(v);
              return h('td', { class: [numeric[c] ? 'num' : '', v === null || v === undefined ? 'null' : ''].join(' ').trim() || null }, text);
            }),
          ),
        ),
      ),
    );
    // Each table region is named by what it holds, not only by its row count (several answers share a page).
    const regionName = `${infos.map((info) => info.label).join('、')} · ${t('rowsCount', rows.length)}`;
    body.append(h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': regionName }, table));

    const cut = listCut(outcome, rows);
    const foot = h('p', { class: 'table-foot muted small', testid: 'rows-foot' }, cut ? cut.text : t('rowsCount', rows.length));
    if (cut && cut.more) foot.append(' · ', h('button', { type: 'button', class: 'link', testid: 'all-rows', onclick: () => askAllRows(round) }, cut.more));
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
    foot.append(
      ' · ',
      h('button', { type: 'button', class: 'link', testid: 'copy-table', onclick: (e) => copyText(e.currentTarget, tsv(infos.map((i) => i.label), rows)) }, t('copyTable')),
    );
    if (a.turnId) {
      // A cut list's CSV holds its every row up to the cap: the server asks its call again for all of them.
      foot.append(' · ', h('button', { type: 'button', class: 'link', testid: 'download-csv', onclick: () => downloadCsv(a.turnId) }, cut && cut.more ? t('downloadCsvAll') : t('downloadCsv')));
    }
    body.append(foot);
  } else if (!rows.length) {
    body.append(h('p', { class: 'muted' }, t('noRows')));
  }

  const ran = executedSql(a.trace, outcome);
  if (ran) body.append(sqlPanel(ran, outcome));
  return body;
}

/**
 * A list its row limit cut (the server's `rows_total` beyond the rows shown, or more than `rows_cap`): the foot's
 * words — 显示前 N 行，共 M 行 — and the control asking for every row up to the cap; null when every row is shown.
 */
function listCut(outcome, rows) {
  const cap = outcome.rows_cap;
  if (typeof cap !== 'number') return null;
  const shown = outcome.totaled ? rows.length - 1 : rows.length;
  const total = typeof outcome.rows_total === 'number' ? outcome.rows_total : null;
  if (total !== null && total <= shown) return null;
  if (total === null && shown >= cap) return { text: t('rowsOfMore', shown, cap), more: null };
  return total === null ? { text: t('rowsOfMore', shown, cap), more: t('allRowsCap', cap) } : { text: t('rowsOf', shown, total), more: t('allRows', total) };
}

/** Asks the round's question again for every row of its list, up to the server's cap (a new round). */
function askAllRows(round) {
  return submit(round.question, { subjectId: round.subjectId, chosenLabel: round.chosenLabel, allRows: true });
}

/**
 * The SQL that ran, highlighted, with its bound values and a copy button. A cut list's limit is bound one row past
 * its cap (the rows it reads to count the list): that value says so beside the call's own limit.
 */
function sqlPanel(ran, outcome) {
  const cap = outcome && typeof outcome.rows_cap === 'number' ? outcome.rows_cap : null;
  const params = (outcome && outcome.params) || {};
  const bindText = (b) => {
    if (cap !== null && b.value === cap + 1 && typeof params[b.name] === 'number') return `${b.name}=${b.value}${t('probeLimit', params[b.name], cap)}`;
    return `${b.name}=${cellText(b.value)}`;
  };
  const pre = h('pre', { class: 'sql', testid: 'answer-sql', tabindex: '0' }, sqlTokens(ran.sql).map((tok) => (tok.kind === 'text' ? tok.text : h('span', { class: `sql-${tok.kind}` }, tok.text))));
  const binds = ran.binds.filter((b) => b && b.name !== undefined);
  const details = h(
    'details',
    { class: 'sql-details', testid: 'sql-details' },
    h('summary', {}, t('showSql')),
    pre,
    binds.length
      ? h('p', { class: 'sql-binds muted small', testid: 'sql-binds' }, t('sqlBinds'), binds.map((b) => h('code', { class: 'param', 'data-bind': b.name }, bindText(b))))
      : null,
    h('button', { type: 'button', class: 'link', testid: 'copy-sql', onclick: (e) => copyText(e.currentTarget, ran.sql) }, t('copySql')),
  );
  return details;
}

/** Copies `text`, saying so on the button for a moment. */
async function copyText(button, text) {
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = t('copied');
  } catch (_) {
    button.textContent = t('copyFailed');
  }
  setTimeout(() => {
    button.textContent = label;
  }, 1500);
}

/** Downloads the answer's rows from the server as CSV (with the API key, so it works behind keys too). */
async function downloadCsv(turnId) {
  let res;
  try {
    res = await fetch(`/api/turns/${encodeURIComponent(turnId)}/csv`, { headers: apiHeaders('text/csv') });
  } catch (_) {
    return;
  }
  if (!res.ok) return;
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: `wenshu-${turnId}.csv`, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
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
        // Another candidate can still be chosen later: it asks again with that one.
        disabled: chosen || state.busy ? true : null,
        title: candidate.method ? `${candidate.method} · ${candidate.score ?? ''}` : null,
      },
      h('span', { class: 'candidate-name' }, name),
      meta ? h('span', { class: 'candidate-meta' }, meta) : null,
      chosen ? h('span', { class: 'candidate-chosen' }, `✓ ${t('candidateChosen')}`) : null,
    );
    button.addEventListener('click', () => {
      if (state.busy || chosen) return;
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
    { class: 'body need', testid: 'need-message', role: 'status', 'data-code': outcome.message ? outcome.message.code : '' },
    h('p', { class: 'prompt' }, t('needIntro')),
    h(
      'ul',
      { class: 'missing' },
      missing.map((m, i) => {
        // The catalog's label (订单 ID) beside the parameter's name, when the server gives one.
        const labels = outcome.message && outcome.message.params && Array.isArray(outcome.message.params.labels) ? outcome.message.params.labels : [];
        const label = labels[i] && labels[i] !== m ? labels[i] : null;
        return h('li', {}, label ? `${label} ` : null, h('code', {}, m));
      }),
    ),
    h('p', { class: 'muted small' }, t('needHint')),
  );
}

/** A server message in the page's language (`{code, zh, en}`); a plain string as it is. */
function messageText(message) {
  if (!message || typeof message !== 'object') return message == null ? '' : String(message);
  return message[language()] || message.zh || message.en || message.code || '';
}

/** The stop's message of a question outside every tool, if it is one. */
function outsideMessage(outcome) {
  const messages = Array.isArray(outcome.messages) ? outcome.messages : [];
  return messages.find((m) => m && m.code === 'question.outside_tools') || null;
}

/** Whether a stop carries a message of `code`. */
function hasCode(outcome, code) {
  return Array.isArray(outcome.messages) && outcome.messages.some((m) => m && m.code === code);
}

/** Whether a stop is about a question outside every tool (older stored stops: no tool and no messages). */
function isOutside(a) {
  if (Array.isArray(a.outcome.messages)) return outsideMessage(a.outcome) !== null;
  return !a.tool;
}

function stoppedBody(outcome) {
  const admin = outcome.audience === 'admin';
  // Coded messages in the page's language; older stored stops carry only the Chinese reasons. The outside-every-
  // tool message is said by the scope help above, with its examples as chips.
  const coded = Array.isArray(outcome.messages);
  const messages = coded ? outcome.messages.filter((m) => m && m.code !== 'question.outside_tools') : [];
  const reasons = coded ? messages.map(messageText) : Array.isArray(outcome.reasons) ? outcome.reasons : [];
  const codes = coded ? outcome.messages.map((m) => m && m.code) : [];
  const hints = Array.isArray(outcome.hints) ? outcome.hints : [];
  return h(
    'div',
    {
      class: `body stopped${admin ? ' admin' : ''}`,
      testid: 'stop-message',
      'data-audience': outcome.audience || 'user',
      'data-code': outcome.code || '',
      'data-codes': codes.join(' '),
      role: 'status',
    },
    h(
      'p',
      { class: 'prompt' },
      h('span', { class: `badge ${admin ? 'admin' : 'user'}`, testid: 'stop-audience' }, admin ? t('forAdmin') : t('forUser')),
      ' ',
      t('stoppedAt', outcome.step ? stepName(outcome.step) : '?'),
    ),
    reasons.length ? h('p', { class: 'label' }, t('stoppedWhy')) : null,
    reasons.length ? h('ul', { class: 'reasons', testid: 'stop-reasons' }, reasons.map((r) => h('li', {}, r))) : null,
    hints.length ? h('ul', { class: 'hints muted small', testid: 'stop-hints' }, hints.map((m) => h('li', { 'data-code': m.code || '' }, messageText(m)))) : null,
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
      h('span', { class: 'step-decision' }, decisionText(step)),
      h('span', { class: 'step-time' }, formatMs(step.duration_ms)),
      step.tokens ? h('span', { class: 'step-tokens' }, t('tokens', step.tokens)) : null,
    ),
  );
  if (step.step === 'fallback' && step.output && typeof step.output === 'object') li.append(fallbackDetails(step.output));

  // Focusable: a keyboard user scrolls the raw JSON like any other scrolling region.
  const pre = h('pre', { class: 'raw-json', testid: 'step-json', tabindex: '0' });
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

// ---------------------------------------------------------------- feedback, links, suggestions

/** 👍/👎 with an optional note, stored with the turn; and a link to this answer. */
function answerTools(round, a) {
  const box = h('div', { class: 'answer-tools', testid: 'answer-tools' });
  const fb = (round.feedback = round.feedback || { verdict: null, note: '', saved: false, open: false });
  const status = h('span', { class: 'feedback-status muted small', role: 'status', testid: 'feedback-status' }, fb.saved ? t('feedbackThanks') : '');
  // One request at a time, in order, so that the last verdict and note are the ones stored.
  const send = () => {
    status.textContent = '';
    const body = { verdict: fb.verdict, note: fb.note || null };
    fb.pending = (fb.pending || Promise.resolve()).then(async () => {
      try {
        await api('PUT', `/api/turns/${encodeURIComponent(a.turnId)}/feedback`, body);
        fb.saved = true;
        status.textContent = t('feedbackThanks');
      } catch (err) {
        status.textContent = errorText(err);
      }
    });
  };
  const noteId = `${round.id}-note`;
  const note = h('textarea', { id: noteId, class: 'feedback-note', rows: '2', maxlength: '1000', testid: 'feedback-note' });
  note.value = fb.note;
  note.addEventListener('input', () => {
    fb.note = note.value;
  });
  const noteForm = h(
    'form',
    { class: 'feedback-form', hidden: !fb.open },
    h('label', { for: noteId, class: 'small' }, t('feedbackNote')),
    note,
    h('button', { type: 'submit', class: 'button ghost', testid: 'feedback-save' }, t('feedbackSave')),
  );
  noteForm.addEventListener('submit', (event) => {
    event.preventDefault();
    send();
  });
  const vote = (verdict, symbol, text) => {
    const button = h('button', { type: 'button', class: 'button ghost vote', testid: `feedback-${verdict}`, 'aria-pressed': fb.verdict === verdict ? 'true' : 'false' }, h('span', { 'aria-hidden': 'true' }, symbol), ` ${text}`);
    button.addEventListener('click', () => {
      fb.verdict = verdict;
      fb.open = true;
      for (const other of box.querySelectorAll('.vote')) other.setAttribute('aria-pressed', String(other === button));
      noteForm.hidden = false;
      send();
    });
    return button;
  };
  const link = state.conversationId || a.conversationId;
  box.append(
    h('span', { class: 'small muted' }, t('feedbackLabel')),
    vote('up', '👍', t('feedbackUp')),
    vote('down', '👎', t('feedbackDown')),
    status,
    link ? h('a', { class: 'link small answer-link', testid: 'answer-link', href: `?c=${encodeURIComponent(link)}#turn-${encodeURIComponent(a.turnId)}` }, t('answerLink')) : null,
    noteForm,
  );
  return box;
}

/** Chips that ask a question when clicked. */
function chips(questions, testid) {
  return questions.map((q) => h('button', { type: 'button', class: 'chip', testid, onclick: () => submit(q) }, q));
}

/**
 * The follow-ups that edit a call, as questions the engine reads whatever the page's language — like the catalog's
 * examples, they are asked as written.
 */
const EDITS = {
  groupBy: (label) => `那按${label}看呢`,
  previousPeriod: '环比呢',
  yearAgo: '同比呢',
  topFive: '前五名呢',
  lastMonth: '上个月呢',
};

/** The first and last day of the month before `today`'s (YYYY-MM-DD). */
function previousMonth(today) {
  const [year, month] = today.split('-').map(Number);
  const first = new Date(Date.UTC(year, month - 2, 1));
  const last = new Date(Date.UTC(year, month - 1, 0));
  return { start: first.toISOString().slice(0, 10), end: last.toISOString().slice(0, 10) };
}

/** A question as compared with another for repeats: without spaces, punctuation and the particles 的, 呢, 吗. */
function sameQuestionKey(question) {
  return String(question).replace(/[\s的呢吗？?。.，,！!、]/g, '');
}

/**
 * Edits of the call just answered, as follow-ups: of a metric call, another dimension of the tool to group by, a
 * comparison when there is none, a ranking of a grouping; of any call over a period, the month before today's
 * (unless it was that month).
 */
function callEdits(a) {
  const params = a.params || {};
  const tool = catalogTool(a.tool);
  const edits = [];
  if (tool && Array.isArray(tool.dimensions) && tool.dimensions.length && Array.isArray(params.measures)) {
    const grouped = Array.isArray(params.groupBy) ? params.groupBy : [];
    const other = tool.dimensions.find((label) => !grouped.includes(label));
    if (grouped.length && other) edits.push(EDITS.groupBy(other));
    if (!params.compare && params.timeRange) edits.push(EDITS.previousPeriod, EDITS.yearAgo);
    if (grouped.length && !params.limit) edits.push(EDITS.topFive);
  }
  const period = periodOf(a.trace);
  const today = todayOf(a.trace);
  const last = today ? previousMonth(today) : null;
  if (period && last && !(period.start === last.start && period.end === last.end)) edits.push(EDITS.lastMonth);
  return edits;
}

/**
 * Two or three follow-ups: edits of the call just made, then the same tool's other examples, then other tools' —
 * only of tools that can run, none a question asked already (whatever its spaces, punctuation or particles).
 */
function followUps(round, a) {
  const asked = new Set(state.rounds.map((r) => sameQuestionKey(r.question)));
  const same = catalogTool(a.tool);
  const runnable = (tool) => tool.runnable !== false;
  const pool = [
    ...callEdits(a),
    ...(same && runnable(same) ? same.examples : []),
    ...state.catalog.filter((tool) => tool !== same && runnable(tool)).flatMap((tool) => tool.examples.slice(0, 1)),
  ];
  const picked = [...new Set(pool)].filter((q) => !asked.has(sameQuestionKey(q))).slice(0, 3);
  if (!picked.length || round !== state.rounds[state.rounds.length - 1]) return null;
  return h('div', { class: 'follow-ups', testid: 'follow-ups' }, h('span', { class: 'small muted' }, t('followUpsTitle')), chips(picked, 'follow-up'));
}

/**
 * For a question outside every tool, or routed to a tool that cannot run here: says so (`intro`) and lists what can
 * be asked — only tools that can run, each with its examples.
 */
function scopeHelp(message, intro = t('outOfScope')) {
  // What can be asked: from the stop's message (the server's catalog at the time), else the page's catalog.
  const listed = message && message.params && Array.isArray(message.params.tools) ? message.params.tools : state.catalog;
  const runnable = (tool) => !state.catalog.some((known) => known.name === (tool.name || tool.tool) && known.runnable === false);
  const tools = listed.filter(runnable).map((tool) => ({
    title: tool.title || tool.name || tool.tool,
    examples: Array.isArray(tool.examples) ? tool.examples : [],
  }));
  const list = h(
    'ul',
    { class: 'scope-list' },
    tools.map((tool) => h('li', {}, h('span', { class: 'scope-title' }, tool.title), ' ', chips(tool.examples.slice(0, 2), 'scope-example'))),
  );
  return h(
    'div',
    { class: 'scope-help', testid: 'scope-help', 'data-code': message ? message.code : '' },
    h('p', { testid: 'scope-help-text' }, intro),
    tools.length ? list : null,
  );
}

/** The page's text for an error code (zh/en), else the server's message. */
function errorText(err) {
  const codes = t('errorCodes');
  const text = err && err.code && codes && codes[err.code];
  if (typeof text === 'function') return text(err.detail || {});
  return text || (err && err.message) || t('errorTitle');
}

function editQuestion(round) {
  els.input.value = round.question;
  updateCounter();
  els.input.focus();
}

function renderExamples() {
  const examples = state.catalog.flatMap((tool) => tool.examples.slice(0, 2)).slice(0, 8);
  els.examples.replaceChildren(...chips(examples.length ? examples : t('examples'), 'example'));
  // The day 本月, 上周 and 最近7天 are read from: the server's, which need not be the reader's.
  els.todayNote.hidden = !state.today;
  els.todayNote.textContent = state.today ? t('todayNote', state.today) : '';
  // What data exists, from when: each metric tool's first and last day as this reader sees it.
  const spans = state.catalog.filter((tool) => tool.dataSpan && tool.dataSpan.start && tool.dataSpan.end);
  els.dataSpans.hidden = spans.length === 0;
  els.dataSpans.textContent = spans.length ? t('dataSpans', spans.map((tool) => t('dataSpan', tool.title || tool.name, tool.dataSpan.start, tool.dataSpan.end))) : '';
}

async function loadCatalog() {
  try {
    const body = await api('GET', '/api/catalog');
    // A tool that cannot run here offers no examples: asking them would only end at the administrator.
    state.catalog = (body.tools || []).map((tool) => ({
      ...tool,
      examples: Array.isArray(tool.examples) && tool.runnable !== false ? tool.examples : [],
      columns: tool.columns || {},
    }));
    if (body.maxQuestionChars) state.maxQuestionChars = body.maxQuestionChars;
    if (typeof body.today === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(body.today)) state.today = body.today;
  } catch (_) {
    state.catalog = [];
  }
  renderExamples();
  updateCounter();
  if (state.rounds.length) renderAll();
}

// ---------------------------------------------------------------- the box

/** The live length counter; a question over the limit cannot be sent. */
function updateCounter() {
  if (!els.counter) return;
  const n = [...els.input.value.trim()].length;
  const max = state.maxQuestionChars;
  const over = n > max;
  els.counter.textContent = t('counter', n, max);
  els.counter.classList.toggle('over', over);
  els.input.setAttribute('aria-invalid', over ? 'true' : 'false');
  els.hint.textContent = over ? t('tooLong', n, max) : '';
  els.ask.disabled = state.busy || over;
  els.input.style.height = 'auto';
  els.input.style.height = `${Math.min(els.input.scrollHeight + 2, 160)}px`;
}

function sendFromBox() {
  const question = els.input.value.trim();
  if (!question) {
    els.hint.textContent = t('emptyQuestion');
    els.input.focus();
    return;
  }
  if ([...question].length > state.maxQuestionChars || state.busy) return;
  els.input.value = '';
  els.hint.textContent = '';
  updateCounter();
  submit(question);
}

// ---------------------------------------------------------------- conversations

/** The conversation id in the address (`?c=`), so a reload restores it. */
function syncUrl() {
  const url = new URL(window.location.href);
  const id = state.conversationId;
  if (id) url.searchParams.set('c', id);
  else url.searchParams.delete('c');
  if (url.searchParams.get('c') !== new URL(window.location.href).searchParams.get('c')) url.hash = '';
  window.history.replaceState(null, '', url);
}

async function refreshConversations() {
  try {
    const body = await api('GET', '/api/conversations?limit=50');
    state.conversations = body.conversations || [];
  } catch (_) {
    state.conversations = [];
  }
  renderConversations();
  renderHeader();
}

function renderConversations() {
  if (!els.history) return;
  const items = state.conversations.map((c) => {
    const current = c.id === state.conversationId;
    const li = h('li', { class: `history-item${current ? ' current' : ''}`, testid: 'history-item', 'data-conversation-id': c.id });
    const open = h(
      'button',
      { type: 'button', class: 'history-open', testid: 'history-open', 'aria-current': current ? 'true' : null, onclick: () => openConversation(c.id) },
      h('span', { class: 'history-title' }, c.title || c.id),
      h('span', { class: 'history-meta' }, `${String(c.updatedAt || '').slice(0, 16).replace('T', ' ')} · ${t('turnsCount', c.turnCount)}`),
    );
    const rename = h('button', { type: 'button', class: 'link small', testid: 'history-rename', 'aria-label': `${t('rename')}: ${c.title}` }, t('rename'));
    rename.addEventListener('click', () => renameForm(li, c));
    const remove = h('button', { type: 'button', class: 'link small danger', testid: 'history-delete', 'aria-label': `${t('delete')}: ${c.title}` }, t('delete'));
    remove.addEventListener('click', async () => {
      if (!window.confirm(t('confirmDelete', c.title))) return;
      try {
        await api('DELETE', `/api/conversations/${encodeURIComponent(c.id)}`);
      } catch (_) {
        /* the list is refreshed either way */
      }
      if (c.id === state.conversationId) newConversation();
      refreshConversations();
    });
    li.append(open, h('span', { class: 'history-actions' }, rename, remove));
    return li;
  });
  els.history.replaceChildren(...(items.length ? items : [h('li', { class: 'muted small history-empty' }, t('historyEmpty'))]));
}

function renameForm(li, c) {
  const inputId = `rename-${c.id}`;
  const input = h('input', { id: inputId, type: 'text', maxlength: '100', class: 'rename-input', testid: 'rename-input' });
  input.value = c.title;
  // Focus goes back to the conversation's own button, never to the top of the page.
  const focusItem = (testid) => {
    const item = els.history.querySelector(`[data-conversation-id="${CSS.escape(c.id)}"]`);
    if (item) item.querySelector(`[data-testid="${testid}"]`)?.focus();
  };
  const cancel = () => {
    renderConversations();
    focusItem('history-rename');
  };
  input.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    cancel();
  });
  const form = h(
    'form',
    { class: 'rename-form' },
    h('label', { for: inputId, class: 'visually-hidden' }, t('renameLabel')),
    input,
    h('button', { type: 'submit', class: 'button ghost small', testid: 'rename-save' }, t('save')),
    h('button', { type: 'button', class: 'link small', testid: 'rename-cancel', onclick: cancel }, t('cancel')),
  );
  const hintId = `${inputId}-hint`;
  const hint = h('p', { id: hintId, class: 'rename-hint small', testid: 'rename-hint', role: 'alert', hidden: true });
  input.addEventListener('input', () => {
    hint.hidden = true;
    input.removeAttribute('aria-invalid');
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const title = input.value.trim();
    if (!title) {
      // A blank name is not saved, and says so; the form stays open on the input.
      hint.textContent = t('renameBlank');
      hint.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute('aria-describedby', hintId);
      input.focus();
      return;
    }
    try {
      await api('PATCH', `/api/conversations/${encodeURIComponent(c.id)}`, { title });
    } catch (_) {
      /* shown by the refreshed list */
    }
    await refreshConversations();
    focusItem('history-open');
  });
  form.append(hint);
  li.replaceChildren(form);
  input.focus();
}

/** A stored turn as a round of the page (its trace read beside it). */
async function roundOfTurn(conversationId, turn) {
  let trace = null;
  try {
    trace = await api('GET', `/api/traces/${encodeURIComponent(turn.traceId)}`);
  } catch (_) {
    trace = null;
  }
  const round = newRound(turn.question);
  round.status = 'done';
  // The verdict given before the reload, shown chosen again.
  if (turn.feedback && turn.feedback.verdict) {
    round.feedback = { verdict: turn.feedback.verdict, note: turn.feedback.note || '', saved: true, open: false };
  }
  round.answer = {
    conversationId,
    turnId: turn.id,
    traceId: turn.traceId,
    kind: turn.kind,
    tool: turn.tool,
    params: turn.outcome && turn.outcome.params ? turn.outcome.params : null,
    rewrittenQuestion: turn.rewrittenQuestion,
    outcome: turn.outcome || {},
    trace,
  };
  return round;
}

/**
 * Which candidate each stored choice got: the next round asking the same question whose call holds one of the
 * candidates' IDs. That candidate is shown chosen again, and the answer says which one it is (and re-asks with it).
 */
function restoreChoices(rounds) {
  rounds.forEach((round, i) => {
    const outcome = round.answer && round.answer.outcome;
    if (!outcome || outcome.kind !== 'choose' || !Array.isArray(outcome.candidates)) return;
    for (const later of rounds.slice(i + 1)) {
      if (later.question !== round.question) continue;
      const values = Object.values((later.answer && later.answer.params) || {}).map(String);
      const candidate = outcome.candidates.find((c) => c.entity && values.includes(String(c.entity.id)));
      if (!candidate) continue;
      const { name, meta } = candidateLabel(candidate.entity);
      round.chosen = candidate.entity.id;
      later.subjectId = candidate.entity.id;
      later.chosenLabel = meta ? `${name}（${meta}）` : name;
      return;
    }
  });
}

/** A word on the empty page (a conversation that is gone), until the next question. */
function showNotice(text) {
  let notice = els.empty.querySelector('[data-testid="notice"]');
  if (!notice) {
    notice = h('p', { class: 'notice', testid: 'notice', role: 'status' });
    els.empty.prepend(notice);
  }
  notice.textContent = text;
}

/** Opens a stored conversation: its turns become the page's rounds; `#turn-…` in the address is scrolled to. */
async function openConversation(id) {
  state.generation += 1;
  const generation = state.generation;
  let page;
  try {
    page = await api('GET', `/api/conversations/${encodeURIComponent(id)}`);
  } catch (err) {
    state.conversationId = null;
    state.rounds = [];
    syncUrl();
    renderAll();
    showNotice(errorText(err));
    return;
  }
  const rounds = await Promise.all((page.turns || []).map((turn) => roundOfTurn(id, turn)));
  if (generation !== state.generation) return;
  restoreChoices(rounds);
  state.conversationId = id;
  state.rounds = rounds;
  setBusy(false);
  renderAll();
  renderHeader();
  renderConversations();
  const url = new URL(window.location.href);
  url.searchParams.set('c', id);
  window.history.replaceState(null, '', url);
  const target = window.location.hash ? document.getElementById(decodeURIComponent(window.location.hash.slice(1))) : null;
  if (target) {
    (target.querySelector('[data-testid="answer"]') || target).classList.add('linked');
    // The linked round from its question, just below the sticky header (never under it).
    keepBelowHeader();
    target.scrollIntoView({ block: 'start', behavior: 'instant' });
  }
  document.body.dataset.restored = id;
}

/** Scrolling to a place (a link's target, the browser's own fragment scroll) stops below the sticky header. */
function keepBelowHeader() {
  const header = document.querySelector('.top');
  if (header) document.documentElement.style.setProperty('scroll-padding-top', `${Math.ceil(header.getBoundingClientRect().height) + 8}px`);
}

// ---------------------------------------------------------------- start

function start() {
  els.input = $('question');
  els.ask = $('ask');
  els.composer = $('composer');
  els.rounds = $('rounds');
  els.empty = $('empty');
  els.examples = $('examples');
  els.todayNote = $('today-note');
  els.dataSpans = $('data-spans');
  els.lang = $('language-toggle');
  els.conversation = $('conversation-id');
  els.counter = $('question-counter');
  els.hint = $('composer-hint');
  els.history = $('history-list');

  setLanguage(initialLanguage());
  renderStatic();
  renderAll();

  els.composer.addEventListener('submit', (event) => {
    event.preventDefault();
    sendFromBox();
  });
  els.input.addEventListener('input', () => {
    if (els.hint.textContent === t('emptyQuestion')) els.hint.textContent = '';
    updateCounter();
  });
  els.input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      sendFromBox();
    }
  });
  els.lang.addEventListener('click', () => {
    const next = language() === 'zh' ? 'en' : 'zh';
    setLanguage(next);
    saveLanguage(next);
    renderStatic();
    renderAll();
  });
  $('new-conversation').addEventListener('click', newConversation);
  $('history-toggle').addEventListener('click', () => {
    const panel = $('history');
    const open = panel.classList.toggle('open');
    $('history-toggle').setAttribute('aria-expanded', String(open));
  });

  redrawOnResize();
  // Every scroll to a place — a link to an answer in this page too — stops below the sticky header.
  keepBelowHeader();
  window.addEventListener('resize', keepBelowHeader);
  loadTools();
  const restored = new URLSearchParams(window.location.search).get('c');
  Promise.all([loadCatalog(), refreshConversations(), restored ? openConversation(restored) : null]).finally(() => {
    document.body.dataset.ready = 'true';
  });
  els.input.focus();
}

start();
