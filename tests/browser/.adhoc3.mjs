import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu'] });
const p = await b.newPage({ locale: 'zh-CN', viewport: { width: 900, height: 500 } });
await p.goto('http://127.0.0.1:18181/');
await p.getByTestId('question-input').fill('流浪地球2最近7天的每日票房'); await p.keyboard.press('Enter');
await p.waitForTimeout(900);
await p.screenshot({ path: '/tmp/shots/live.png' });
await b.close();
