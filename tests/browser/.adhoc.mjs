import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu'] });
const p = await b.newPage({ locale: process.env.LOC || 'zh-CN', viewport: { width: Number(process.env.W||390), height: 844 } });
await p.goto('http://127.0.0.1:18181/');
const qs = JSON.parse(process.env.QS);
let n = 0;
for (const q of qs) { await p.getByTestId('question-input').fill(q); await p.keyboard.press('Enter'); n++; await p.locator('[data-testid=answer]').nth(n-1).waitFor({timeout: 15000}); }
if (process.env.TRACE) { await p.getByTestId('trace-toggle').last().click(); }
if (process.env.BADGE) { await p.getByTestId('fallback-badge').last().click(); }
await p.locator('[data-testid=answer]').last().scrollIntoViewIfNeeded();
await p.evaluate((y) => window.scrollBy(0, y), Number(process.env.DY || 0));
await p.screenshot({ path: process.env.OUT, fullPage: !!process.env.FULL, style: '.top, .composer { position: static !important; }' });
await b.close();
