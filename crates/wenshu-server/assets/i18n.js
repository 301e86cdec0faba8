// Every user-facing string of the page, in one table: Chinese and English.
// A value is a string, or a function of its arguments (for counts and names).

export const STRINGS = {
  zh: {
    htmlLang: 'zh-CN',
    title: '问数',
    subtitle: '用一句话问数据',
    switchLanguage: 'English',
    switchLanguageLabel: 'Switch to English',
    newConversation: '新会话',
    conversation: (id) => `会话 ${id}`,
    noConversation: '新的会话',
    questionLabel: '你的问题',
    questionPlaceholder: '例如：华东区本月的销售额是多少',
    ask: '发送',
    asking: '查询中…',
    emptyTitle: '问一个关于数据的问题',
    emptyHint: '回车发送。追问时可以用“它”“那”指代上一轮的对象。',
    examples: ['华东区本月的销售额是多少', '英雄上周的票房', '流浪地球2最近7天的每日票房'],
    you: '你',
    assistant: '问数',
    chose: (label) => `已选择：${label}`,
    running: '正在处理…',
    stepsSoFar: '已完成的步骤',
    understood: '理解为：',
    tool: '工具：',
    params: '参数：',
    fallbackBadge: '兜底',
    fallbackBadgeTitle: '兜底（Text-to-SQL）回答：点击查看原因',
    fallbackReason: '兜底原因：',
    sql: 'SQL',
    showSql: '查看执行的 SQL',
    noRows: '没有查到数据。',
    rowsCount: (n) => `共 ${n} 行`,
    truncated: '结果已被截断（超过行数上限）。',
    showAll: (n) => `显示全部 ${n} 行`,
    showFewer: (n) => `只显示前 ${n} 行`,
    chartTitle: (cols) => `趋势：${cols}`,
    chooseIntro: (name) => `“${name}”有多个匹配，请选择一个：`,
    candidateChosen: '已选择',
    needIntro: '还需要以下信息才能查询：',
    needHint: '请在下一句话里补充，例如直接输入它们的值。',
    stoppedAt: (step) => `在「${step}」步骤停止。`,
    stoppedWhy: '原因：',
    forAdmin: '需要管理员处理',
    forUser: '请调整问题后重试',
    errorTitle: '出错了',
    errorCode: (code) => `错误码：${code}`,
    networkError: '无法连接服务器。',
    conversationGone: '服务器上已没有这个会话；下一个问题将开始新的会话。',
    apiKeyLabel: '这个服务器需要 API 密钥：',
    apiKeySave: '保存并重试',
    traceShow: '查看推理过程',
    traceHide: '收起推理过程',
    traceEngine: (engine) => `引擎：${engine}`,
    traceTotal: (ms) => `合计 ${ms}`,
    tokens: (n) => `${n} tokens`,
    rawShow: '原始 JSON',
    attempt: (i) => `第 ${i} 次`,
    correction: '（纠正）',
    explanation: '说明：',
    guardAllowed: '安全检查：通过',
    guardRefused: '安全检查：拒绝',
    guardReasons: '检查意见：',
    guardTables: '表：',
    guardLimit: '行数上限：',
    guardSql: '安全检查后的 SQL：',
    attemptError: '错误：',
    finalSql: '最终执行的 SQL',
    fallbackRows: (n) => `返回 ${n} 行`,
    fallbackNoRows: '没有结果',
    stepNames: {
      route: '路由',
      check: '校验',
      resolve: '实体解析',
      fill: '日期补全',
      extract: '参数抽取',
      coverage: '是否答全',
      execute: '执行',
      fallback: '兜底',
    },
    kindLabels: {
      answered: '已回答',
      choose: '需要选择',
      need: '需要补充',
      stopped: '已停止',
      error: '错误',
    },
  },
  en: {
    htmlLang: 'en',
    title: 'wenshu',
    subtitle: 'Ask the data in one sentence',
    switchLanguage: '中文',
    switchLanguageLabel: '切换到中文',
    newConversation: 'New conversation',
    conversation: (id) => `Conversation ${id}`,
    noConversation: 'New conversation',
    questionLabel: 'Your question',
    questionPlaceholder: 'e.g. 华东区本月的销售额是多少',
    ask: 'Send',
    asking: 'Asking…',
    emptyTitle: 'Ask a question about your data',
    emptyHint: 'Press Enter to send. Follow-ups may say “it” (它/那) for the last subject.',
    examples: ['华东区本月的销售额是多少', '英雄上周的票房', '流浪地球2最近7天的每日票房'],
    you: 'You',
    assistant: 'wenshu',
    chose: (label) => `Chosen: ${label}`,
    running: 'Working…',
    stepsSoFar: 'Steps so far',
    understood: 'Understood as: ',
    tool: 'Tool: ',
    params: 'Parameters: ',
    fallbackBadge: 'Fallback',
    fallbackBadgeTitle: 'Answered by the Text-to-SQL fallback: click for why',
    fallbackReason: 'Why the fallback ran: ',
    sql: 'SQL',
    showSql: 'Show the SQL that ran',
    noRows: 'No rows.',
    rowsCount: (n) => `${n} row${n === 1 ? '' : 's'}`,
    truncated: 'The result was truncated (row cap reached).',
    showAll: (n) => `Show all ${n} rows`,
    showFewer: (n) => `Show the first ${n} rows`,
    chartTitle: (cols) => `Trend: ${cols}`,
    chooseIntro: (name) => `“${name}” matches several entries. Please choose one:`,
    candidateChosen: 'chosen',
    needIntro: 'To answer, I still need:',
    needHint: 'Please give them in your next message.',
    stoppedAt: (step) => `Stopped at the “${step}” step.`,
    stoppedWhy: 'Why: ',
    forAdmin: 'For the administrator',
    forUser: 'Please rephrase and try again',
    errorTitle: 'Error',
    errorCode: (code) => `Code: ${code}`,
    networkError: 'Cannot reach the server.',
    conversationGone: 'The server no longer has this conversation; the next question starts a new one.',
    apiKeyLabel: 'This server needs an API key:',
    apiKeySave: 'Save and retry',
    traceShow: 'Show how it was answered',
    traceHide: 'Hide the trace',
    traceEngine: (engine) => `Engine: ${engine}`,
    traceTotal: (ms) => `total ${ms}`,
    tokens: (n) => `${n} tokens`,
    rawShow: 'Raw JSON',
    attempt: (i) => `Attempt ${i}`,
    correction: ' (correction)',
    explanation: 'Explanation: ',
    guardAllowed: 'Guard: allowed',
    guardRefused: 'Guard: refused',
    guardReasons: 'Guard reasons: ',
    guardTables: 'Tables: ',
    guardLimit: 'Row limit: ',
    guardSql: 'The SQL after the guard:',
    attemptError: 'Error: ',
    finalSql: 'The SQL that ran',
    fallbackRows: (n) => `${n} row${n === 1 ? '' : 's'} returned`,
    fallbackNoRows: 'no result',
    stepNames: {
      route: 'route',
      check: 'check',
      resolve: 'resolve',
      fill: 'fill dates',
      extract: 'extract',
      coverage: 'coverage',
      execute: 'execute',
      fallback: 'fallback',
    },
    kindLabels: {
      answered: 'answered',
      choose: 'choose',
      need: 'need more',
      stopped: 'stopped',
      error: 'error',
    },
  },
};

const STORAGE_KEY = 'wenshu.lang';

/** The language to start with: the saved choice, else the browser's. */
export function initialLanguage() {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved && STRINGS[saved]) return saved;
  } catch (_) {
    /* storage may be unavailable */
  }
  const langs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || ''];
  return String(langs[0] || '').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

export function saveLanguage(lang) {
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch (_) {
    /* ignore */
  }
}

let current = 'zh';

export function setLanguage(lang) {
  current = STRINGS[lang] ? lang : 'zh';
}

export function language() {
  return current;
}

/** The string `key` in the current language (called with `args` when it is a function). */
export function t(key, ...args) {
  const value = STRINGS[current][key] ?? STRINGS.zh[key] ?? key;
  return typeof value === 'function' ? value(...args) : value;
}

/** A step's display name: the localized label, with the pipeline's own name. */
export function stepName(step) {
  const label = STRINGS[current].stepNames[step];
  return label && label !== step ? `${label} · ${step}` : step;
}
