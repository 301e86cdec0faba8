// Browser test of the wenshu page against a running `wenshu demo` server.
//
//   WENSHU_URL=http://127.0.0.1:18080 node run.mjs      (or: node run.mjs 18080)
//
// Drives Debian's /usr/bin/chromium (override with CHROMIUM) through playwright-core; nothing is downloaded.
// Every wait is time-boxed; a screenshot is saved after each step to target/browser-screenshots/
// (override with WENSHU_SCREENSHOTS). Ends with `N passed, M failed` and exits non-zero on any failure.

import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const portArg = process.argv[2];
const BASE = (portArg ? `http://127.0.0.1:${portArg}` : process.env.WENSHU_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOTS = path.resolve(process.env.WENSHU_SCREENSHOTS || path.join(repoRoot, 'target', 'browser-screenshots'));
const WAIT_MS = Number(process.env.WENSHU_WAIT_MS || 10_000); // one UI wait
const SERVER_WAIT_MS = Number(process.env.WENSHU_SERVER_WAIT_MS || 60_000); // the server coming up
const TOTAL_MS = Number(process.env.WENSHU_TOTAL_MS || 180_000); // the whole run

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const results = [];
const pageErrors = [];
let browserContext = null;
let userDataDir = null;

function log(line) {
  process.stdout.write(`${line}\n`);
}

function cleanup() {
  if (userDataDir) {
    try {
      fs.rmSync(userDataDir, { recursive: true, force: true });
    } catch (_) {
      /* ignore */
    }
  }
}

// Never hang: a hard deadline for the whole run.
const deadline = setTimeout(() => {
  log(`FAIL: the browser test did not finish within ${TOTAL_MS / 1000} s`);
  summary();
  cleanup();
  process.exit(1);
}, TOTAL_MS);
deadline.unref();

function summary() {
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  log('');
  for (const r of results) log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name}${r.ok ? '' : `\n       ${r.error}`}`);
  log(`\n${passed} passed, ${failed} failed`);
  return failed;
}

class CheckError extends Error {}
function assert(condition, message) {
  if (!condition) throw new CheckError(message);
}

let shotIndex = 0;
async function screenshot(page, name) {
  shotIndex += 1;
  const file = path.join(SHOTS, `${String(shotIndex).padStart(2, '0')}-${name}.png`);
  try {
    // From the top, so that the sticky header and composer sit at the ends of the full-page image.
    // (A class, not an injected style: the page's CSP allows no inline style.)
    await page.evaluate(() => {
      window.scrollTo(0, 0);
      document.documentElement.classList.add('full-page-shot');
    });
    await page.screenshot({ path: file, fullPage: true, timeout: WAIT_MS });
    await page.evaluate(() => document.documentElement.classList.remove('full-page-shot'));
    log(`     screenshot ${path.relative(repoRoot, file)}`);
  } catch (err) {
    log(`     (screenshot ${name} failed: ${err.message.split('\n')[0]})`);
  }
}

/** One check (an assertion group): runs `body`, records pass/fail, then saves a screenshot. */
async function check(page, name, shot, body) {
  const started = Date.now();
  try {
    await body();
    results.push({ name, ok: true });
    log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (err) {
    const message = err instanceof CheckError ? err.message : `${err.message.split('\n')[0]}`;
    results.push({ name, ok: false, error: message });
    log(`FAIL ${name}: ${message}`);
  }
  if (shot) await screenshot(page, shot);
}

async function waitForServer() {
  const until = Date.now() + SERVER_WAIT_MS;
  let last = '';
  while (Date.now() < until) {
    try {
      const res = await fetch(`${BASE}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = err.cause?.code || err.message;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the server at ${BASE} did not answer /healthz within ${SERVER_WAIT_MS / 1000} s (${last})`);
}

const answers = (page) => page.locator('[data-testid="answer"]');

/** Type a question, press Enter, and wait for answer number `index` (0-based); returns that answer. */
async function askAndWait(page, question, index) {
  const input = page.getByTestId('question-input');
  await input.fill(question, { timeout: WAIT_MS });
  await input.press('Enter', { timeout: WAIT_MS });
  return waitAnswer(page, index, question);
}

async function waitAnswer(page, index, question) {
  const answer = answers(page).nth(index);
  try {
    await answer.waitFor({ state: 'visible', timeout: WAIT_MS });
  } catch (_) {
    const count = await answers(page).count();
    throw new CheckError(`no answer #${index + 1} to 「${question}」 within ${WAIT_MS / 1000} s (${count} answers on the page)`);
  }
  return answer;
}

async function describe(answer) {
  const kind = await answer.getAttribute('data-kind');
  if (kind === 'error') return `an error: ${(await answer.innerText()).replace(/\s+/g, ' ').slice(0, 200)}`;
  if (kind === 'stopped') return `stopped: ${(await answer.innerText()).replace(/\s+/g, ' ').slice(0, 200)}`;
  return `kind ${kind}`;
}

async function expectKind(answer, kind) {
  const actual = await answer.getAttribute('data-kind');
  assert(actual === kind, `expected a "${kind}" answer, got ${await describe(answer)}`);
}

async function text(locator) {
  return (await locator.innerText({ timeout: WAIT_MS })).replace(/\s+/g, ' ').trim();
}

async function main() {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const f of fs.readdirSync(SHOTS)) if (f.endsWith('.png')) fs.rmSync(path.join(SHOTS, f));
  assert(fs.existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
  log(`wenshu browser test: ${BASE} with ${CHROMIUM}`);
  await waitForServer();

  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wenshu-chromium-'));
  browserContext = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    locale: 'zh-CN',
    viewport: { width: 1100, height: 860 },
    timeout: 30_000,
  });
  browserContext.setDefaultTimeout(WAIT_MS);
  const page = browserContext.pages()[0] || (await browserContext.newPage());
  page.on('pageerror', (err) => pageErrors.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(`console error: ${msg.text()}`);
  });
  page.on('requestfailed', (req) => pageErrors.push(`request failed: ${req.url()} (${req.failure()?.errorText})`));

  /** The moderate, serious and critical axe-core violations of the page as it is now. */
  async function seriousViolations() {
    await page.evaluate(AXE_SOURCE);
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    return result.violations
      .filter((v) => v.impact === 'moderate' || v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.nodes.length}: ${v.nodes.slice(0, 2).map((n) => n.target.join(' ')).join(', ')})`);
  }

  await check(page, 'the page loads with a question box and a send button', 'home', async () => {
    const res = await page.goto(`${BASE}/`, { waitUntil: 'load', timeout: WAIT_MS });
    assert(res && res.ok(), `GET / answered ${res ? res.status() : 'nothing'}`);
    await page.locator('body[data-ready="true"]').waitFor({ timeout: WAIT_MS }).catch(() => {
      throw new CheckError('the page script did not start (body[data-ready] never set: is /assets/app.js served as JavaScript?)');
    });
    assert(await page.getByTestId('question-input').isVisible(), 'no question input');
    assert(await page.getByTestId('ask-button').isVisible(), 'no send button');
    const label = await page.locator('label[for="question"]').count();
    assert(label === 1, 'the question input has no label');
    // Examples only of tools that can run here: one that cannot would end at the administrator.
    const catalog = await (await page.request.get(`${BASE}/api/catalog`)).json();
    const dead = catalog.tools.filter((tool) => tool.runnable === false).flatMap((tool) => tool.examples);
    const live = catalog.tools.filter((tool) => tool.runnable === true);
    assert(live.length >= 1, 'no tool is runnable');
    const offered = await page.getByTestId('examples').getByTestId('example').allInnerTexts();
    assert(offered.length >= 1, 'no example offered');
    const deadOffered = offered.filter((example) => dead.includes(example.trim()));
    assert(deadOffered.length === 0, `examples of tools that cannot run are offered: ${deadOffered.join(' | ')}`);
    // The empty page says which day 本月 and 上周 are read from, and that a question naming no period reads all.
    const note = await text(page.getByTestId('today-note'));
    assert(/^\d{4}-\d{2}-\d{2}$/.test(catalog.today) && note.includes(catalog.today) && note.includes('全部数据'), `the today note says "${note}" (the server's today: ${catalog.today})`);
    // And what data exists, from when: each metric tool's first and last day.
    const spans = catalog.tools.filter((tool) => tool.dataSpan);
    assert(spans.length >= 1, 'no tool of the catalog says the span of its data');
    const said = await text(page.getByTestId('data-spans'));
    for (const tool of spans) {
      assert(said.includes(`${tool.title} ${tool.dataSpan.start} 至 ${tool.dataSpan.end}`), `the data line says "${said}", not ${tool.title}'s ${JSON.stringify(tool.dataSpan)}`);
    }
  });

  await check(page, '华东区本月的销售额是多少 → a table, tool sales_query, 理解为', 'sales', async () => {
    const answer = await askAndWait(page, '华东区本月的销售额是多少', 0);
    await expectKind(answer, 'answered');
    const table = answer.getByTestId('answer-table');
    assert(await table.isVisible(), 'no result table');
    const rows = await table.locator('tbody tr').count();
    assert(rows >= 1, 'the result table has no rows');
    const tool = await text(answer.getByTestId('tool-line'));
    assert(tool.includes('sales_query'), `the tool line says "${tool}", not sales_query`);
    const understood = await text(answer.getByTestId('understood-line'));
    assert(/理解为/.test(understood) && understood.length > 4, `the understood line says "${understood}"`);
    assert((await answer.getByTestId('understood-line').getAttribute('data-from-call')) === 'true', 'the understood line is not written from the call');
    assert(understood.includes('华东') && /\d{4}-\d{2}-\d{2}/.test(understood) && !understood.includes('是多少'), `the understood line does not show the bound call: "${understood}"`);
    // The parameters the summary's statement used, and the one choosing it; never a limit a one-row summary never reads.
    const params = await text(answer.locator('.params'));
    assert(params.includes('region=') && params.includes('queryType=') && !params.includes('limit='), `the parameters read "${params}"`);
  });

  let heroOk = false;
  let heroConversation = null;
  await check(page, '英雄上周的票房 → two candidate buttons', 'hero-candidates', async () => {
    const answer = await askAndWait(page, '英雄上周的票房', 1);
    await expectKind(answer, 'choose');
    const buttons = answer.getByTestId('candidate-button');
    const count = await buttons.count();
    assert(count === 2, `expected 2 candidate buttons, found ${count}`);
    const labels = await buttons.allInnerTexts();
    assert(labels.some((l) => l.includes('2022')) && labels.some((l) => l.includes('2002')), `candidates lack years: ${labels.join(' | ')}`);
    const found = await seriousViolations();
    assert(found.length === 0, `with candidates to choose: ${found.join('; ')}`);
    heroOk = true;
  });

  await check(page, 'choosing the 2022 英雄 → an answered block with a table', 'hero-2022', async () => {
    assert(heroOk, 'no candidates to choose from');
    await answers(page).nth(1).getByTestId('candidate-button').filter({ hasText: '2022' }).click({ timeout: WAIT_MS });
    const answer = await waitAnswer(page, 2, '英雄上周的票房 (2022)');
    await expectKind(answer, 'answered');
    assert(await answer.getByTestId('answer-table').isVisible(), 'no result table');
    const rows = await answer.getByTestId('answer-table').locator('tbody tr').count();
    assert(rows >= 1, 'the result table has no rows');
    heroConversation = new URL(page.url()).searchParams.get('c');
  });

  await check(page, '流浪地球2最近7天的每日票房 → a 7-row table and a line chart', 'wandering-earth-chart', async () => {
    const answer = await askAndWait(page, '流浪地球2最近7天的每日票房', 3);
    await expectKind(answer, 'answered');
    const rows = await answer.getByTestId('answer-table').locator('tbody tr:visible').count();
    assert(rows === 7, `expected 7 rows, found ${rows}`);
    const chart = answer.getByTestId('chart');
    assert(await chart.isVisible(), 'no chart');
    const lines = await chart.locator('svg path').count();
    const dots = await chart.locator('svg circle').count();
    assert(lines >= 1 && dots === 7, `the chart has ${lines} line(s) and ${dots} point(s), expected a line with 7 points`);
  });

  await check(page, 'the chosen subject shows by name beside its ID, not as a bare ID', null, async () => {
    const params = await text(answers(page).nth(2).locator('.params'));
    assert(/英雄（ID \d+）/.test(params), `the parameters say "${params}"`);
  });

  await check(page, 'follow-up 那它的评分呢 → answered with tool movie_rating', 'follow-up-rating', async () => {
    const answer = await askAndWait(page, '那它的评分呢', 4);
    await expectKind(answer, 'answered');
    const tool = await text(answer.getByTestId('tool-line'));
    assert(tool.includes('movie_rating'), `the tool line says "${tool}", not movie_rating`);
  });

  await check(page, 'a question of its own after a subject (最近30天票房前五的电影) ranks five films, not the earlier one', 'own-after-subject', async () => {
    const answer = await askAndWait(page, '最近30天票房前五的电影', await answers(page).count());
    await expectKind(answer, 'answered');
    const rows = await answer.getByTestId('answer-table').locator('tbody tr:visible').count();
    assert(rows === 5, `expected the five top films, found ${rows} row(s)`);
    const understood = await text(answer.getByTestId('understood-line'));
    assert(!understood.includes('流浪地球2'), `the earlier subject leaked into "${understood}"`);
  });

  await check(page, 'opening a trace lists its steps with durations', 'trace', async () => {
    const answer = answers(page).last();
    const toggle = answer.getByTestId('trace-toggle');
    await toggle.click({ timeout: WAIT_MS });
    const trace = answer.getByTestId('trace');
    await trace.waitFor({ state: 'visible', timeout: WAIT_MS });
    assert((await toggle.getAttribute('aria-expanded')) === 'true', 'the trace toggle does not say it is expanded');
    const steps = trace.getByTestId('trace-step');
    const count = await steps.count();
    const names = [];
    for (let i = 0; i < count; i += 1) names.push(await steps.nth(i).getAttribute('data-step'));
    assert(count >= 2, `the trace lists ${count} step(s)`);
    assert(names.includes('route') && names.includes('execute'), `the trace's steps are ${names.join(', ')}; expected route … execute`);
    const head = await text(steps.first());
    assert(/\d\s*m?s/.test(head), `the first step shows no duration: "${head}"`);
    // The raw JSON of a step, on demand.
    await steps.first().locator('details.raw summary').click({ timeout: WAIT_MS });
    await steps.first().getByTestId('step-json').filter({ hasText: '"step"' }).waitFor({ timeout: WAIT_MS }).catch(() => {
      throw new CheckError("the step's raw JSON did not show");
    });
    await trace.scrollIntoViewIfNeeded({ timeout: WAIT_MS });
    // axe-core in this state too: a trace open with a step's raw JSON shown.
    const found = await seriousViolations();
    assert(found.length === 0, `with a raw JSON open: ${found.join('; ')}`);
  });

  const streamed = await answers(page).evaluateAll((nodes) => nodes.filter((n) => n.dataset.streamed === 'true').length).catch(() => 0);
  log(`     note: ${streamed} answer(s) showed their steps while streaming`);

  await check(page, 'the language toggle switches the page to English and back', 'chinese-again', async () => {
    await page.getByTestId('language-toggle').click({ timeout: WAIT_MS });
    const understood = await text(answers(page).first().getByTestId('understood-line'));
    assert(understood.startsWith('Understood as'), `after the toggle the understood line says "${understood}"`);
    // The engine's English wording of the call, never its Chinese one.
    const conversation = new URL(page.url()).searchParams.get('c');
    const stored = await (await fetch(`${BASE}/api/conversations/${conversation}`)).json();
    const said = stored.turns[0].outcome.understood;
    assert(said && said.en && said.en !== said.zh, `the first turn has no English understood line: ${JSON.stringify(said)}`);
    assert(understood.includes(said.en) && !understood.includes(said.zh), `the English page's understood line is "${understood}", not the engine's English "${said.en}"`);
    assert((await page.locator('html').getAttribute('lang')) === 'en', 'the html lang is not en');
    // The engine's own words are English on the English page: a series is a "trend by day", never "trend by 日".
    const series = await text(answers(page).nth(3).getByTestId('understood-line'));
    assert(/trend by (day|week|month|quarter|year)\b/.test(series), `the English understood line of a series says "${series}"`);
    const found = await seriousViolations();
    assert(found.length === 0, `on the English page: ${found.join('; ')}`);
    await screenshot(page, 'english');
    await page.getByTestId('language-toggle').click({ timeout: WAIT_MS });
    const back = await text(answers(page).first().getByTestId('understood-line'));
    assert(back.startsWith('理解为'), `after toggling back the understood line says "${back}"`);
  });

  await check(page, 'new conversation → 帮我查一下订单 (a tool that cannot run here) says so at once, for the user, with what can be asked', 'not-runnable', async () => {
    const before = await page.getByTestId('conversation-id').getAttribute('data-conversation-id');
    assert(before, 'no conversation id is shown after the first rounds');
    await page.getByTestId('new-conversation').click({ timeout: WAIT_MS });
    assert((await answers(page).count()) === 0, 'the old rounds are still shown after "new conversation"');
    const answer = await askAndWait(page, '帮我查一下订单', 0);
    await expectKind(answer, 'stopped');
    const shown = await text(answer);
    assert(shown.includes('还没有接入') && !shown.includes('管理员处理') && !/executor|x-sql/.test(shown), `the stop says "${shown.slice(0, 200)}"`);
    const catalog = await (await page.request.get(`${BASE}/api/catalog`)).json();
    const live = catalog.tools.filter((tool) => tool.runnable === true).flatMap((tool) => tool.examples);
    const offered = (await answer.getByTestId('scope-example').allInnerTexts()).map((c) => c.trim());
    assert(offered.length >= 1 && offered.every((c) => live.includes(c)), `what can be asked instead: ${offered.join(' | ')}`);
    // The header names the conversation by its first question, never by a hex id.
    const header = await text(page.getByTestId('conversation-id'));
    assert(header.includes('帮我查一下订单') && !/[0-9a-f]{8}/.test(header), `the header says "${header}"`);
    const after = await page.getByTestId('conversation-id').getAttribute('data-conversation-id');
    assert(after && after !== before, 'the new conversation kept the old conversation id');
  });

  await check(page, '这部电影的评分 (no film named) asks for the missing value', 'need', async () => {
    const answer = await askAndWait(page, '这部电影的评分', await answers(page).count());
    await expectKind(answer, 'need');
    const need = await text(answer.getByTestId('need-message'));
    assert(need.includes('movieId') || need.includes('影片'), `the need message does not name the film: "${need}"`);
    const found = await seriousViolations();
    assert(found.length === 0, `with a need for values: ${found.join('; ')}`);
  });

  await check(page, '今天天气怎么样 (no tool) → says where and why it stopped (or a 兜底 answer)', 'stopped', async () => {
    const answer = await askAndWait(page, '今天天气怎么样', 2);
    const kind = await answer.getAttribute('data-kind');
    if (kind === 'answered') {
      assert(await answer.getByTestId('fallback-badge').isVisible(), 'answered without a tool but shows no 兜底 badge');
      return;
    }
    await expectKind(answer, 'stopped');
    const stop = await text(answer.getByTestId('stop-message'));
    assert(/fallback|check|route/.test(stop), `the stop message names no step: "${stop}"`);
    // Outside every tool is the user's to reword: it says so, lists what can be asked, never "需要管理员处理".
    const box = answer.getByTestId('stop-message');
    assert((await box.getAttribute('data-audience')) === 'user', `a question outside every tool is for the ${await box.getAttribute('data-audience')}`);
    assert((await box.getAttribute('data-code')) === 'question.outside_tools', `the stop's code is "${await box.getAttribute('data-code')}"`);
    assert(!stop.includes('需要管理员处理'), `a user-fixable stop says "需要管理员处理": "${stop}"`);
    assert((await answer.getByTestId('scope-example').count()) >= 2, 'the stop lists no example questions to ask');
    const found = await seriousViolations();
    assert(found.length === 0, `with a stop and its scope help: ${found.join('; ')}`);
    const hint = await text(answer.getByTestId('stop-hints'));
    assert(hint.includes('模型'), `the administrator's hint (a model enables Text-to-SQL) is missing: "${hint}"`);
    // Its trace's decisions are Chinese on the Chinese page, the check's notes among them.
    await answer.getByTestId('trace-toggle').click({ timeout: WAIT_MS });
    const check = answer.getByTestId('trace').locator('[data-step="check"] .step-decision');
    await check.first().waitFor({ state: 'visible', timeout: WAIT_MS });
    const said = await text(check.first());
    assert(/[\u4e00-\u9fff]/.test(said) && !/no tool was chosen|no dates were routed/.test(said), `the check step says "${said}" on the Chinese page`);
    await answer.getByTestId('trace-toggle').click({ timeout: WAIT_MS });
  });

  await check(page, '今年各地区的销售额占比 → an honest stop naming what cannot be done (or a 兜底 answer)', 'coverage-stop', async () => {
    const answer = await askAndWait(page, '今年各地区的销售额占比', 3);
    const kind = await answer.getAttribute('data-kind');
    if (kind === 'answered') {
      const tool = await answer.getAttribute('data-tool');
      assert(tool !== 'sales_query', 'the totals tool answered a question about shares by region');
      // The share reads as a percentage in the table and on its bars, and the rows come by the measure, largest first.
      const heads = await answer.getByTestId('answer-table').locator('thead th').allInnerTexts();
      const shareAt = heads.findIndex((h) => h.includes('占比'));
      assert(shareAt >= 0, `no share column among ${heads.join(' | ')}`);
      const cells = await answer.getByTestId('answer-table').locator(`tbody tr td:nth-child(${shareAt + 1})`).allInnerTexts();
      assert(cells.length >= 2 && cells.every((c) => /^\d+(\.\d+)?%$/.test(c.trim())), `the shares read ${cells.join(' | ')}`);
      const panel = answer.getByTestId('chart').locator('.chart-panel').filter({ has: page.locator('.chart-title', { hasText: '占比' }) });
      const barValues = await panel.locator('text.chart-value').allTextContents();
      assert(barValues.length === cells.length && barValues.every((v) => v.trim().endsWith('%')), `the share bars read ${barValues.join(' | ')}`);
      const measure = await answer.getByTestId('answer-table').locator(`tbody tr td:nth-child(${shareAt})`).allInnerTexts();
      const numbers = measure.map((m) => Number(m.replace(/[^\d.-]/g, '')));
      assert(numbers.every((n, i) => i === 0 || numbers[i - 1] >= n), `the shares are not ordered by the measure: ${measure.join(' | ')}`);
      // Its CSV is headed with the unit and the share in percent, as the table reads.
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: WAIT_MS }),
        answer.getByTestId('download-csv').click({ timeout: WAIT_MS }),
      ]);
      const lines = fs.readFileSync(await download.path(), 'utf8').replace(/^\uFEFF/, '').split('\r\n').filter(Boolean);
      const csvHeads = lines[0].split(',');
      assert(csvHeads.some((h) => /（元）$/.test(h)) && /占比（%）$/.test(csvHeads[csvHeads.length - 1]), `the CSV is headed "${lines[0]}"`);
      const csvShares = lines.slice(1).map((l) => Number(l.split(',').pop()));
      assert(csvShares.every((v, i) => Math.abs(v - Number(cells[i].replace('%', ''))) < 0.011), `the CSV's shares ${csvShares.join(' | ')} differ from the table's ${cells.join(' | ')}`);
      return;
    }
    await expectKind(answer, 'stopped');
    const stop = await text(answer.getByTestId('stop-message'));
    assert(/不能|不支持/.test(stop) && stop.includes('可以回答'), `the stop does not say what cannot be done and what can: "${stop}"`);
  });


  // ------------------------------------------------------------ the analyst's page (issue 17)

  let trendTurn = null;
  await check(page, '今年每个月的销售趋势 → lines in time order, one axis per measure', 'trend-lines', async () => {
    await page.getByTestId('new-conversation').click({ timeout: WAIT_MS });
    const answer = await askAndWait(page, '今年每个月的销售趋势', 0);
    await expectKind(answer, 'answered');
    trendTurn = await answer.getAttribute('data-turn-id');
    const chart = answer.getByTestId('chart');
    assert((await chart.getAttribute('data-kind')) === 'line', `the trend is drawn as "${await chart.getAttribute('data-kind')}", not lines`);
    const panels = await chart.locator('.chart-panel').count();
    const measures = await answer.locator('th.num').count();
    assert(panels === measures && panels >= 2, `${panels} chart panel(s) for ${measures} measure(s): each measure needs its own axis`);
    const xs = await chart.locator('.chart-panel').first().locator('circle.chart-dot').evaluateAll((dots) => dots.map((d) => d.dataset.x));
    const sorted = [...xs].sort();
    assert(xs.length >= 2 && xs.join() === sorted.join(), `the points are not in time order: ${xs.join(', ')}`);
    const labels = await answer.locator('th').allInnerTexts();
    assert(labels.some((l) => l.includes('销售额')), `the columns are not labelled from the catalog: ${labels.join(' | ')}`);
    // A column of months is labelled as months, not as days (日期).
    assert(labels[0].includes('月') && !labels[0].includes('日期'), `the month column is labelled "${labels[0]}"`);
    // The running month is marked, and the values are reachable by keyboard.
    const today = new Date().toISOString().slice(0, 10);
    if (xs[xs.length - 1] === today.slice(0, 7) && !today.endsWith('-31')) {
      assert((await chart.getByTestId('chart-partial').count()) === 1, 'the partial last month is not marked');
    }
    const svg = chart.locator('svg[tabindex="0"]').first();
    await svg.focus();
    await svg.press('Home');
    const readout = await text(chart.getByTestId('chart-readout').first());
    assert(readout.includes(xs[0]) && /\d/.test(readout), `the keyboard readout says "${readout}"`);
    // The partial-period note keeps its brackets whole in English too.
    if ((await chart.getByTestId('chart-partial').count()) === 1) {
      await page.getByTestId('language-toggle').click({ timeout: WAIT_MS });
      try {
        const note = await text(answers(page).first().getByTestId('chart-partial'));
        const open = (note.match(/[(（]/g) || []).length;
        const close = (note.match(/[)）]/g) || []).length;
        assert(open === close && /up to/.test(note), `the English partial note says "${note}"`);
      } finally {
        await page.getByTestId('language-toggle').click({ timeout: WAIT_MS });
      }
    }
  });

  await check(page, 'the SQL that ran is shown for a fixed tool, with its bound values', 'sql', async () => {
    const answer = answers(page).first();
    await answer.getByTestId('sql-details').locator('summary').click({ timeout: WAIT_MS });
    const sql = await text(answer.getByTestId('answer-sql'));
    assert(/^SELECT\b/i.test(sql) && /\bFROM\b/i.test(sql), `the SQL panel shows "${sql.slice(0, 80)}"`);
    const binds = await text(answer.getByTestId('sql-binds'));
    assert(/\d{4}-\d{2}-\d{2}/.test(binds), `the bound dates are not shown: "${binds}"`);
    const found = await seriousViolations();
    assert(found.length === 0, `with the SQL open: ${found.join('; ')}`);
  });

  await check(page, 'CSV downloads the same rows as the answer', 'csv', async () => {
    const answer = answers(page).first();
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: WAIT_MS }),
      answer.getByTestId('download-csv').click({ timeout: WAIT_MS }),
    ]);
    const file = await download.path();
    const lines = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '').split('\r\n').filter(Boolean);
    const conversation = new URL(page.url()).searchParams.get('c');
    const stored = await (await fetch(`${BASE}/api/conversations/${conversation}`)).json();
    const turn = stored.turns.find((t) => t.id === trendTurn);
    assert(turn, `turn ${trendTurn} is not in conversation ${conversation}`);
    // Headed by the catalog's labels with their units, as the table is.
    const catalog = await (await fetch(`${BASE}/api/catalog`)).json();
    const declared = (catalog.tools.find((t) => t.name === turn.tool) || {}).columns || {};
    const heading = (c) => (declared[c] ? (declared[c].unit ? `${declared[c].label}（${declared[c].unit}）` : declared[c].label) : c);
    const expected = [turn.outcome.columns.map(heading).join(','), ...turn.outcome.rows.map((r) => r.map((v) => (v === null ? '' : String(v))).join(','))];
    assert(lines.join('\n') === expected.join('\n'), `the CSV differs from the answer:\n${lines.slice(0, 3).join('\n')}\nvs\n${expected.slice(0, 3).join('\n')}`);
    const shown = await answer.getByTestId('answer-table').locator('tbody tr').count();
    assert(shown === lines.length - 1, `the table has ${shown} rows, the CSV ${lines.length - 1}`);
  });

  let rankingTurn = null;
  await check(page, '上季度企业版的销售排名前五 → bars in rank order', 'ranking-bars', async () => {
    const answer = await askAndWait(page, '上季度企业版的销售排名前五', 1);
    await expectKind(answer, 'answered');
    rankingTurn = await answer.getAttribute('data-turn-id');
    const chart = answer.getByTestId('chart');
    assert((await chart.getAttribute('data-kind')) === 'bar', `the ranking is drawn as "${await chart.getAttribute('data-kind')}", not bars`);
    const bars = await chart.locator('.chart-panel').first().locator('g.chart-bar').evaluateAll((g) => g.map((n) => n.dataset.label));
    const firstColumn = await answer.getByTestId('answer-table').locator('tbody tr td:first-child').allInnerTexts();
    assert(bars.length >= 2 && bars.join() === firstColumn.join(), `bars ${bars.join(', ')} vs rows ${firstColumn.join(', ')}`);
  });

  await check(page, '👎 with a note is stored with the turn and read back over the API', 'feedback', async () => {
    const answer = answers(page).nth(1);
    await answer.getByTestId('feedback-down').click({ timeout: WAIT_MS });
    await answer.getByTestId('feedback-note').fill('应该按地区排', { timeout: WAIT_MS });
    await answer.getByTestId('feedback-save').click({ timeout: WAIT_MS });
    await answer.getByTestId('feedback-status').filter({ hasText: '已记录' }).waitFor({ timeout: WAIT_MS });
    let entry = null;
    for (const until = Date.now() + WAIT_MS; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      const body = await (await fetch(`${BASE}/api/feedback`)).json();
      entry = (body.feedback || []).find((f) => f.turnId === rankingTurn);
      if (entry && entry.note) break;
    }
    assert(entry, `GET /api/feedback has no verdict on turn ${rankingTurn}`);
    assert(entry.verdict === 'down' && entry.note === '应该按地区排', `stored ${JSON.stringify(entry)}`);
    assert(entry.question === '上季度企业版的销售排名前五' && entry.tool, `the verdict lacks its question or plan: ${JSON.stringify(entry)}`);
  });

  let firstConversation = null;
  await check(page, 'a reload restores the conversation from the address', 'reload', async () => {
    firstConversation = new URL(page.url()).searchParams.get('c');
    assert(firstConversation, `the address names no conversation: ${page.url()}`);
    const before = await answers(page).count();
    await page.reload({ waitUntil: 'load', timeout: WAIT_MS });
    await page.locator(`body[data-restored="${firstConversation}"]`).waitFor({ timeout: WAIT_MS });
    const after = await answers(page).count();
    assert(after === before, `${before} answers before the reload, ${after} after`);
    assert((await answers(page).nth(1).getAttribute('data-kind')) === 'answered', 'the restored ranking is not an answer');
    assert((await answers(page).nth(1).getByTestId('chart').getAttribute('data-kind')) === 'bar', 'the restored ranking lost its bars');
    // The 👎 given before the reload is shown chosen again, with its note.
    const down = answers(page).nth(1).getByTestId('feedback-down');
    assert((await down.getAttribute('aria-pressed')) === 'true', 'the 👎 given before the reload is not shown chosen');
    assert((await answers(page).nth(1).getByTestId('feedback-up').getAttribute('aria-pressed')) === 'false', '👍 is shown chosen after the reload');
    assert((await answers(page).nth(1).getByTestId('feedback-note').inputValue()) === '应该按地区排', 'the note is lost after the reload');
  });

  await check(page, "an answer's link opens with its question and answer below the sticky header", 'answer-link', async () => {
    await page.goto(`${BASE}/?c=${encodeURIComponent(firstConversation)}#turn-${encodeURIComponent(rankingTurn)}`, { waitUntil: 'load', timeout: WAIT_MS });
    await page.locator(`body[data-restored="${firstConversation}"]`).waitFor({ timeout: WAIT_MS });
    const box = await page.evaluate((id) => {
      const answer = document.getElementById(`turn-${id}`);
      const question = answer && answer.closest("li.round").querySelector('[data-testid="question"]');
      const header = document.querySelector('.top');
      return answer && question && header
        ? { header: header.getBoundingClientRect().bottom, question: question.getBoundingClientRect().top, answer: answer.getBoundingClientRect().top, scrolled: window.scrollY }
        : null;
    }, rankingTurn);
    assert(box, 'the linked answer, its question or the header is missing');
    assert(box.scrolled > 0, `the page did not scroll to the linked answer: ${JSON.stringify(box)}`);
    assert(box.question >= box.header - 1 && box.answer >= box.header - 1, `the linked round starts under the header: ${JSON.stringify(box)}`);
  });

  await check(page, 'a suggestion on the empty page asks, follow-ups are offered', 'suggestion', async () => {
    await page.getByTestId('new-conversation').click({ timeout: WAIT_MS });
    const example = page.getByTestId('examples').getByTestId('example').first();
    const question = await text(example);
    await example.click({ timeout: WAIT_MS });
    const answer = await waitAnswer(page, 0, question);
    assert((await text(page.getByTestId('question').first())).includes(question), 'the example was not asked');
    if ((await answer.getAttribute('data-kind')) === 'answered') {
      const followUps = await answer.getByTestId('follow-up').count();
      assert(followUps >= 2 && followUps <= 3, `${followUps} follow-ups after an answer`);
    }
  });

  await check(page, '上个月各地区的销售额 (a metric tool) → bars from its chart hint, labels and SQL', 'metric-bars', async () => {
    const answer = await askAndWait(page, '上个月各地区的销售额', await answers(page).count());
    await expectKind(answer, 'answered');
    const chart = answer.getByTestId('chart');
    assert((await chart.getAttribute('data-kind')) === 'bar', `a group-by is drawn as "${await chart.getAttribute('data-kind')}", not bars`);
    const bars = await chart.locator('g.chart-bar').count();
    const rows = await answer.getByTestId('answer-table').locator('tbody tr').count();
    assert(bars === rows && rows >= 2, `${bars} bars for ${rows} rows`);
    // The metric call's parameters read as words, not JSON.
    const params = await text(answer.locator('.params'));
    assert(params.includes('measures=') && !/[{}"\[\]]/.test(params), `the parameters read "${params}"`);
    await answer.getByTestId('sql-details').locator('summary').click({ timeout: WAIT_MS });
    assert(/^SELECT\b/i.test(await text(answer.getByTestId('answer-sql'))), 'no SQL shown for the metric tool');
  });

  await check(page, 'the follow-up chip 那按产品看呢 (an edit of the call) replaces the grouping and keeps the period', 'follow-up-grouping', async () => {
    const earlier = await text(answers(page).last().getByTestId('understood-line'));
    const chips = answers(page).last().getByTestId('follow-up');
    const offered = await chips.allInnerTexts();
    assert(offered.some((c) => c.includes('环比') || c.includes('同比')), `no comparison edit among the chips: ${offered.join(' | ')}`);
    const regroup = chips.filter({ hasText: '那按产品看' });
    assert((await regroup.count()) === 1, `no chip regrouping the answer by another dimension: ${offered.join(' | ')}`);
    const index = await answers(page).count();
    await regroup.click({ timeout: WAIT_MS });
    const answer = await waitAnswer(page, index, '那按产品看呢');
    await expectKind(answer, 'answered');
    const understood = await text(answer.getByTestId('understood-line'));
    assert(understood.includes('产品') && !understood.includes('地区'), `the grouping was not replaced: "${understood}"`);
    const days = (line) => (line.match(/\d{4}-\d{2}-\d{2}/g) || []).join(' ');
    assert(days(understood) && days(understood) === days(earlier), `the period changed: "${earlier}" → "${understood}"`);
  });

  await check(page, '华东区本月的销售额环比 (a running period) → compared on the same days, 截至 … 同期 on the page', 'running-compare', async () => {
    const answer = await askAndWait(page, '华东区本月的销售额环比', await answers(page).count());
    await expectKind(answer, 'answered');
    const shown = await text(answer);
    assert(shown.includes('截至') && shown.includes('同期'), `the answer does not say it compares the same days: "${shown.slice(0, 200)}"`);
    // The engine's headline writes whole amounts as the tables do (2,406,672元, never 2,406,672.00元).
    const headline = await text(answer.getByTestId('headline-text'));
    assert(/\d元/.test(headline) && !/\.00元/.test(headline), `the headline says "${headline}"`);
    // The rate of change reads as a percentage, never as a bare fraction.
    const values = await answer.getByTestId('headline-value').allInnerTexts();
    const rate = values.find((v) => v.includes('%'));
    assert(rate && /^[+−-]?\d+(\.\d+)?%$/.test(rate.trim()), `no rate shown as a percentage among ${values.join(' | ')}`);
    assert(!values.some((v) => /^-?0\.\d{3,}$/.test(v.trim())), `a fraction is shown bare: ${values.join(' | ')}`);
    // On the English page, the headline is the engine's English sentence, never its Chinese one.
    const trace = await (await fetch(`${BASE}/api/traces/${await answer.getAttribute('data-trace-id')}`)).json();
    const executed = (trace.steps || []).find((st) => st.step === 'execute');
    const presentation = executed && executed.output && executed.output.detail && executed.output.detail.presentation;
    await page.getByTestId('language-toggle').click({ timeout: WAIT_MS });
    try {
      const english = answers(page).last().getByTestId('headline-text');
      if (presentation && presentation.headline_en) {
        assert((await text(english)) === presentation.headline_en.replace(/\s+/g, ' ').trim(), `the English headline says "${await text(english)}"`);
      } else {
        assert((await english.count()) === 0 || !/[\u4e00-\u9fff]{4,}/.test(await text(english)), 'a Chinese headline on the English page');
      }
    } finally {
      await page.getByTestId('language-toggle').click({ timeout: WAIT_MS });
    }
  });

  await check(page, '哪个地区的销售额最高 (no period asked) → says it covers all the data; one format and unit per measure across tools', 'all-data', async () => {
    const answer = await askAndWait(page, '哪个地区的销售额最高', await answers(page).count());
    await expectKind(answer, 'answered');
    const period = await text(answer.getByTestId('headline-period'));
    assert(period.includes('全部数据') && /\d{4}-\d{2}-\d{2} 至 \d{4}-\d{2}-\d{2}/.test(period), `the period line says "${period}"`);
    // A whole amount reads as the fixed tool shows it: 77,120,920 元, never 77,120,920.00 元.
    const values = await answer.getByTestId('headline-value').allInnerTexts();
    assert(values.length >= 1 && values.every((v) => !/\.00\b/.test(v)), `a whole amount with .00: ${values.join(' | ')}`);
    // 销量 has one unit in the fixed tool's table (the first answer) and in the metric tool's.
    const unitOf = (header) => (/销量（([^）]+)）/.exec(header) || [])[1];
    const fixedUnit = unitOf(await text(answers(page).first().getByTestId('answer-table').locator('thead')));
    const metric = await askAndWait(page, '本月各地区的销量', await answers(page).count());
    await expectKind(metric, 'answered');
    const metricUnit = unitOf(await text(metric.getByTestId('answer-table').locator('thead')));
    assert(fixedUnit && fixedUnit === metricUnit, `销量 is in ${fixedUnit} in one tool and in ${metricUnit} in the other`);
  });

  await check(page, '2020年1月华东区的销售额 (before the data starts) → says there is no data, never a bare —', 'no-data', async () => {
    const answer = await askAndWait(page, '2020年1月华东区的销售额', await answers(page).count());
    await expectKind(answer, 'answered');
    const headline = await text(answer.getByTestId('headline-text'));
    assert(headline.includes('没有') && headline.includes('数据'), `the headline says "${headline}"`);
    assert((await answer.getByTestId('headline-value').count()) === 0, 'a value card with no value (—) is shown');
  });

  await check(page, 'the chips after a fixed tool\'s answer edit its call (上个月呢), repeat no question, offer no tool that cannot run, and each answers', 'follow-up-edits', async () => {
    const question = '华东区本月的销售额是多少';
    const answer = await askAndWait(page, question, await answers(page).count());
    await expectKind(answer, 'answered');
    const offered = (await answer.getByTestId('follow-up').allInnerTexts()).map((c) => c.trim());
    assert(offered.includes('上个月呢'), `no chip moving the period to last month among ${offered.join(' | ')}`);
    // Never a question of this conversation again, whatever its spaces, punctuation or particles.
    const key = (q) => q.replace(/[\s的呢吗？?。.，,！!、]/g, '');
    const asked = (await page.getByTestId('question').locator('.question-text').allInnerTexts()).map(key);
    const repeats = offered.filter((c) => asked.includes(key(c)));
    assert(repeats.length === 0, `chips repeat questions already asked: ${repeats.join(' | ')}`);
    const catalog = await (await fetch(`${BASE}/api/catalog`)).json();
    const dead = catalog.tools.filter((tool) => tool.runnable === false).flatMap((tool) => tool.examples);
    const deadOffered = offered.filter((c) => dead.includes(c));
    assert(deadOffered.length === 0, `chips of tools that cannot run: ${deadOffered.join(' | ')}`);
    // Every edit (a chip that is no catalog example) is answered by the engine after the question.
    const examples = catalog.tools.flatMap((tool) => tool.examples);
    for (const edit of offered.filter((c) => !examples.includes(c))) {
      const first = await (await fetch(`${BASE}/api/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question }) })).json();
      const then = await (await fetch(`${BASE}/api/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: edit, conversationId: first.conversationId }) })).json();
      assert(then.kind === 'answered', `the chip ${edit} after ${question} ends as ${then.kind}: ${JSON.stringify(then.outcome).slice(0, 200)}`);
    }
  });

  await check(page, 'the list opens an old conversation; rename is kept', 'history', async () => {
    await page.getByTestId('history-list').locator(`[data-conversation-id="${firstConversation}"]`).waitFor({ timeout: WAIT_MS });
    const item = page.getByTestId('history-list').locator(`[data-conversation-id="${firstConversation}"]`);
    await item.getByTestId('history-rename').click({ timeout: WAIT_MS });
    await page.getByTestId('rename-input').fill('年度趋势与排名', { timeout: WAIT_MS });
    await page.getByTestId('rename-save').click({ timeout: WAIT_MS });
    await page.getByTestId('history-list').locator(`[data-conversation-id="${firstConversation}"]`).getByText('年度趋势与排名').waitFor({ timeout: WAIT_MS });
    // After saving, the focus stays on the conversation renamed; Escape cancels a rename and keeps the title.
    const focused = await page.evaluate(() => document.activeElement?.closest('[data-conversation-id]')?.dataset.conversationId ?? null);
    assert(focused === firstConversation, `after the rename the focus is on ${focused}, not the renamed conversation`);
    await page.getByTestId('history-list').locator(`[data-conversation-id="${firstConversation}"]`).getByTestId('history-rename').click({ timeout: WAIT_MS });
    // A blank name is not saved, and says so, the form still open on the input.
    await page.getByTestId('rename-input').fill('   ', { timeout: WAIT_MS });
    await page.getByTestId('rename-save').click({ timeout: WAIT_MS });
    const blank = await text(page.getByTestId('rename-hint'));
    assert(blank.includes('不能为空'), `a blank name says "${blank}"`);
    assert((await page.getByTestId('rename-input').getAttribute('aria-invalid')) === 'true', 'the blank name is not marked invalid');
    assert(await page.getByTestId('rename-input').evaluate((n) => document.activeElement === n), 'the focus left the name input after a blank name');
    await page.getByTestId('rename-input').fill('不要这个名字', { timeout: WAIT_MS });
    await page.getByTestId('rename-input').press('Escape', { timeout: WAIT_MS });
    assert((await page.getByTestId('rename-input').count()) === 0, 'Escape did not close the rename form');
    const kept = await text(page.getByTestId('history-list').locator(`[data-conversation-id="${firstConversation}"]`).locator('.history-title'));
    assert(kept === '年度趋势与排名', `after Escape the title is "${kept}"`);
    await page.evaluate(() => delete document.body.dataset.restored);
    await page.getByTestId('history-list').locator(`[data-conversation-id="${firstConversation}"]`).getByTestId('history-open').click({ timeout: WAIT_MS });
    await page.locator(`body[data-restored="${firstConversation}"]`).waitFor({ timeout: WAIT_MS });
    const questions = await page.getByTestId('question').allInnerTexts();
    assert(questions.length === 2 && questions[0].includes('今年每个月的销售趋势'), `the reopened conversation shows ${questions.join(' | ')}`);
    assert(new URL(page.url()).searchParams.get('c') === firstConversation, 'the address does not name the reopened conversation');
  });

  await check(page, 'the box: whitespace, the length limit before sending, zh/en messages', 'limits', async () => {
    const input = page.getByTestId('question-input');
    await input.fill('   ', { timeout: WAIT_MS });
    await input.press('Enter');
    const zh = await text(page.getByTestId('composer-hint'));
    assert(zh.includes('请先输入问题'), `a whitespace-only question says "${zh}"`);
    await page.getByTestId('language-toggle').click({ timeout: WAIT_MS });
    await input.fill('销'.repeat(501), { timeout: WAIT_MS });
    const en = await text(page.getByTestId('composer-hint'));
    assert(/at most 500/.test(en), `an over-long question says "${en}"`);
    assert(await page.getByTestId('ask-button').isDisabled(), 'an over-long question can still be sent');
    assert((await text(page.getByTestId('question-counter'))) === '501 / 500', 'the counter does not show 501 / 500');
    await input.press('Enter');
    assert((await input.inputValue()).length === 501, 'the over-long text was not kept');
    await screenshot(page, 'english-limit');
    await page.getByTestId('language-toggle').click({ timeout: WAIT_MS });
    await input.fill('', { timeout: WAIT_MS });
  });

  await check(page, 'a candidate can be changed after choosing: the other one asks again', 'rechoose', async () => {
    await page.getByTestId('new-conversation').click({ timeout: WAIT_MS });
    const choose = await askAndWait(page, '英雄上周的票房', 0);
    await expectKind(choose, 'choose');
    await choose.getByTestId('candidate-button').filter({ hasText: '2022' }).click({ timeout: WAIT_MS });
    await expectKind(await waitAnswer(page, 1, '英雄 (2022)'), 'answered');
    const other = answers(page).first().getByTestId('candidate-button').filter({ hasText: '2002' });
    assert(await other.isEnabled(), 'the other candidate is disabled after choosing');
    await other.click({ timeout: WAIT_MS });
    await expectKind(await waitAnswer(page, 2, '英雄 (2002)'), 'answered');
    const params = await text(answers(page).nth(2).locator('.params'));
    assert(/英雄（ID \d+）/.test(params), `the second choice's parameters say "${params}"`);
  });

  await check(page, 'a stop message is in the page language: zh, then en after the toggle', 'stop-languages', async () => {
    await page.getByTestId('new-conversation').click({ timeout: WAIT_MS });
    const answer = await askAndWait(page, '战狼3的票房', 0);
    await expectKind(answer, 'stopped');
    const box = answer.getByTestId('stop-message');
    assert((await box.getAttribute('data-code')) === 'resolve.not_found', `the stop's code is "${await box.getAttribute('data-code')}"`);
    const zh = await text(answer.getByTestId('stop-reasons'));
    assert(zh.includes('对象未找到') && zh.includes('战狼3'), `the Chinese stop says "${zh}"`);
    await page.getByTestId('language-toggle').click({ timeout: WAIT_MS });
    const en = await text(answers(page).first().getByTestId('stop-reasons'));
    assert(en.startsWith('Not found') && en.includes('战狼3') && !en.includes('对象未找到'), `the English stop says "${en}"`);
    const badge = await text(answers(page).first().getByTestId('stop-audience'));
    assert(badge === 'Please rephrase and try again', `the English badge says "${badge}"`);
    await screenshot(page, 'stop-english');
    await page.getByTestId('language-toggle').click({ timeout: WAIT_MS });
    const back = await text(answers(page).first().getByTestId('stop-reasons'));
    assert(back === zh, `after toggling back the stop says "${back}"`);
  });

  await check(page, 'a wide table scrolls in its own focusable box at 390 px; the page does not', 'wide-table', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(400); // the answers redraw for the new width (and would take the focus away)
    const answer = await askAndWait(page, '张伟上个月的销售明细', 1);
    await expectKind(answer, 'answered');
    const wrap = answer.locator('.table-wrap');
    const box = await wrap.evaluate((n) => ({ scroll: n.scrollWidth, client: n.clientWidth, right: n.getBoundingClientRect().right, tab: n.tabIndex, role: n.getAttribute('role'), label: n.getAttribute('aria-label') }));
    assert(box.scroll > box.client, `the table is not wider than its box (${box.scroll} vs ${box.client} px): nothing to test`);
    assert(box.right <= 390 + 1, `the table box ends at ${box.right} px, past the 390 px screen`);
    assert(box.tab === 0 && box.role === 'region' && box.label, `the scrolling box is not a labelled, focusable region: ${JSON.stringify(box)}`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert(overflow <= 1, `the page scrolls sideways by ${overflow} px with a wide table`);
    await wrap.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    // Keyboard scrolling is smooth: wait for it to move.
    let scrolled = 0;
    for (const until = Date.now() + 2000; Date.now() < until && scrolled === 0; await page.waitForTimeout(100)) {
      scrolled = await wrap.evaluate((n) => n.scrollLeft);
    }
    assert(scrolled > 0, 'the arrow keys do not scroll the focused table');
    // A redraw for another width (a phone turned) keeps the table's scroll and the focus.
    await page.setViewportSize({ width: 320, height: 844 });
    await page.waitForTimeout(400);
    const kept = await answers(page).nth(1).locator('.table-wrap').evaluate((n) => ({ left: n.scrollLeft, focused: document.activeElement === n }));
    assert(kept.left > 0 && kept.focused, `after a redraw the table's scroll or focus is lost: ${JSON.stringify(kept)}`);
    await page.setViewportSize({ width: 1366, height: 900 });
  });

  await check(page, '流浪地球2最近7天的票房 → the 7 days and their 合计 in the table; the chart draws the 7 days only', 'series-total', async () => {
    const answer = await askAndWait(page, '流浪地球2最近7天的票房', 2);
    await expectKind(answer, 'answered');
    const firsts = await answer.getByTestId('answer-table').locator('tbody tr td:first-child').allTextContents();
    assert(firsts.length === 8 && firsts[7].includes('合计'), `the table's first cells are ${JSON.stringify(firsts)}, expected 7 days and 合计`);
    const dots = await answer.getByTestId('chart').locator('svg circle').count();
    assert(dots === 7, `the chart has ${dots} point(s): the 合计 row must not be drawn as a day`);
  });

  await check(page, '张伟上个月的销售明细 → 显示前 10 行，共 M 行; 显示全部 shows all M rows; the CSV holds all M with labels and units', 'all-rows', async () => {
    await page.getByTestId('new-conversation').click({ timeout: WAIT_MS });
    const cut = await askAndWait(page, '张伟上个月的销售明细', 0);
    await expectKind(cut, 'answered');
    const foot = await text(cut.getByTestId('rows-foot'));
    const said = /显示前 10 行，共 (\d+) 行/.exec(foot);
    assert(said && Number(said[1]) > 10, `the cut list's foot says "${foot}", not 显示前 10 行，共 M 行`);
    const total = Number(said[1]);
    const cutRows = await cut.getByTestId('answer-table').locator('tbody tr').count();
    assert(cutRows === 10, `the cut list shows ${cutRows} rows, not 10`);
    // The true count is the server's, and every row comes when asked for.
    await cut.getByTestId('all-rows').click({ timeout: WAIT_MS });
    const all = await waitAnswer(page, 1, '张伟上个月的销售明细 (all rows)');
    await expectKind(all, 'answered');
    const allFoot = await text(all.getByTestId('rows-foot'));
    assert(allFoot.startsWith(`共 ${total} 行`), `the whole list's foot says "${allFoot}", not 共 ${total} 行`);
    await all.getByTestId('show-all').click({ timeout: WAIT_MS });
    const visible = await all.getByTestId('answer-table').locator('tbody tr:visible').count();
    assert(visible === total, `after 显示全部 the table shows ${visible} rows, not ${total}`);
    // The cut list's CSV is the whole list's: one line a row, headed by labels with units.
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: WAIT_MS }),
      cut.getByTestId('download-csv').click({ timeout: WAIT_MS }),
    ]);
    const lines = fs.readFileSync(await download.path(), 'utf8').replace(/^\uFEFF/, '').split('\r\n').filter(Boolean);
    assert(lines[0] === '日期,地区,产品,销售员,销售额（元）,销量（套）', `the CSV is headed "${lines[0]}"`);
    assert(lines.length - 1 === total, `the CSV holds ${lines.length - 1} rows, not ${total}`);
    assert((await answers(page).count()) === 2, 'downloading the CSV asked the question again as a new round');
    // The SQL's limit is bound one row past the cap (to count the list): it says so beside the call's own limit.
    await cut.getByTestId('sql-details').locator('summary').click({ timeout: WAIT_MS });
    const binds = await text(cut.getByTestId('sql-binds'));
    assert(/显示前 10 行/.test(binds) && /多读 1 行/.test(binds), `the bound limit is not explained: "${binds}"`);
  });

  await check(page, "the Chinese page's trace says each step's decision in Chinese (no \"every field passed\", \"ok\", \"N rows\")", 'trace-zh', async () => {
    const answer = answers(page).first();
    await answer.getByTestId('trace-toggle').click({ timeout: WAIT_MS });
    const trace = answer.getByTestId('trace');
    await trace.waitFor({ state: 'visible', timeout: WAIT_MS });
    const decisions = await trace.locator('.step-decision').allInnerTexts();
    assert(decisions.length >= 5, `the trace shows ${decisions.length} decision(s)`);
    const english = decisions.filter((d) => /every field passed|^ok$|\d+ rows?\b|^tool /.test(d.trim()));
    assert(english.length === 0, `English decisions in the Chinese page: ${english.join(' | ')}`);
    assert(decisions.some((d) => d.includes('各项均通过检查')), `no Chinese check decision among ${decisions.join(' | ')}`);
  });

  await check(page, 'a reloaded conversation shows which candidate was chosen', 'choice-restored', async () => {
    assert(heroConversation, 'no conversation with a choice to reload');
    await page.goto(`${BASE}/?c=${encodeURIComponent(heroConversation)}`, { waitUntil: 'load', timeout: WAIT_MS });
    await page.locator(`body[data-restored="${heroConversation}"]`).waitFor({ timeout: WAIT_MS });
    const buttons = answers(page).nth(1).getByTestId('candidate-button');
    const pressed = await buttons.evaluateAll((nodes) => nodes.map((n) => `${n.getAttribute('aria-pressed')}:${n.innerText}`));
    const chosen = pressed.filter((p) => p.startsWith('true:'));
    assert(chosen.length === 1 && chosen[0].includes('2022'), `after the reload the candidates say ${pressed.join(' | ')}`);
    const note = await text(page.getByTestId('question').nth(2));
    assert(note.includes('2022'), `the question after the choice does not say which one: "${note.slice(0, 120)}"`);
  });

  await check(page, 'axe-core: no moderate or serious violation at desktop size', 'desktop', async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.waitForTimeout(300);
    const found = await seriousViolations();
    assert(found.length === 0, found.join('; '));
  });

  await check(page, 'axe-core: no moderate or serious violation at phone size', 'phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(400);
    await page.getByTestId('history-toggle').click({ timeout: WAIT_MS });
    const found = await seriousViolations();
    await page.getByTestId('history-toggle').click({ timeout: WAIT_MS });
    assert(found.length === 0, found.join('; '));
  });

  await check(page, 'the page fits a narrow (390 px) screen', 'narrow', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(400); // the charts redraw for the new width
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert(overflow <= 1, `the page scrolls sideways by ${overflow} px at 390 px wide`);
    assert(await page.getByTestId('ask-button').isVisible(), 'the send button is hidden at 390 px');
    // The time axis labels of every line chart stand apart.
    const crowded = await page.evaluate(() => {
      const found = [];
      for (const svg of document.querySelectorAll('svg.chart-svg')) {
        const bottom = Math.max(...[...svg.querySelectorAll('text.chart-tick')].map((t) => Number(t.getAttribute('y'))));
        const boxes = [...svg.querySelectorAll('text.chart-tick')]
          .filter((t) => Number(t.getAttribute('y')) === bottom)
          .map((t) => ({ text: t.textContent, box: t.getBBox() }))
          .sort((a, b) => a.box.x - b.box.x);
        for (let i = 1; i < boxes.length; i += 1) {
          if (boxes[i].box.x < boxes[i - 1].box.x + boxes[i - 1].box.width) found.push(`${boxes[i - 1].text}/${boxes[i].text}`);
        }
      }
      return found;
    });
    assert(crowded.length === 0, `axis labels overlap at 390 px: ${crowded.join(', ')}`);
  });

  await check(page, 'while a question runs: no "null" under it (in the aria-live log), axe-core clean', 'running', async () => {
    await page.getByTestId('new-conversation').click({ timeout: WAIT_MS });
    // Hold the answer back a moment, so that the running state can be read.
    await page.route('**/api/ask', async (route) => {
      const response = await route.fetch();
      await new Promise((r) => setTimeout(r, 1500));
      await route.fulfill({ response });
    });
    try {
      const input = page.getByTestId('question-input');
      await input.fill('华东区本月的销售额是多少', { timeout: WAIT_MS });
      await input.press('Enter', { timeout: WAIT_MS });
      const pending = page.getByTestId('pending');
      await pending.waitFor({ state: 'visible', timeout: WAIT_MS });
      const round = await text(page.locator('li.round').last());
      assert(!/\bnull\b|undefined/.test(round), `the running round says "${round}"`);
      const found = await seriousViolations();
      assert(found.length === 0, `while running: ${found.join('; ')}`);
      await waitAnswer(page, 0, '华东区本月的销售额是多少 (held back)');
    } finally {
      await page.unroute('**/api/ask');
    }
  });

  await check(page, 'a link to a conversation that is gone says so on the page', 'conversation-gone', async () => {
    const errorsBefore = pageErrors.length;
    await page.goto(`${BASE}/?c=0000deadbeef0000`, { waitUntil: 'load', timeout: WAIT_MS });
    const notice = page.getByTestId('notice');
    await notice.waitFor({ state: 'visible', timeout: WAIT_MS }).catch(() => {
      throw new CheckError('no word on the page for a conversation that does not exist');
    });
    const said = await text(notice);
    assert(said.includes('不存在') || said.includes('does not exist'), `the notice says "${said}"`);
    assert(new URL(page.url()).searchParams.get('c') === null, 'the address still names the missing conversation');
    // The browser logs the expected 404 of the missing conversation; nothing else may have gone wrong.
    const added = pageErrors.splice(errorsBefore);
    const other = added.filter((e) => !e.includes('404'));
    assert(other.length === 0, other.join('; '));
  });

  await check(page, 'no JavaScript errors or failed requests on the page', null, async () => {
    assert(pageErrors.length === 0, pageErrors.slice(0, 5).join('; '));
  });
}

let exitCode = 0;
try {
  await main();
} catch (err) {
  results.push({ name: 'setup', ok: false, error: err.message.split('\n')[0] });
  log(`FAIL setup: ${err.message}`);
} finally {
  if (browserContext) await browserContext.close().catch(() => {});
  cleanup();
  exitCode = summary() > 0 ? 1 : 0;
  clearTimeout(deadline);
}
process.exit(exitCode);
