// What must never reach an operator's eyes on the shell's screens, checked on the page's text.
import type { Page } from 'playwright-core';

/** Tenants, ids, contract sections, HTTP status codes, passkey ids, a 12-hour clock. */
export const FORBIDDEN: [string, RegExp][] = [
  ['tenant', /tenant:/i],
  ['uuid', /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i],
  ['contract', /contract/i],
  ['http code', /(?<!RS-)\b(?:4\d\d|5\d\d)\b(?!\s*(?:°|%|ppm|min|h\b|m\b|kg|l\b|bar|birds))/],
  ['passkey id', /PK-/],
  ['12-hour clock', /\b\d{1,2}:\d{2}(?::\d{2})?\s?(?:AM|PM)\b/i],
];

export async function forbiddenOn(page: Page): Promise<string[]> {
  const text = (await page.evaluate('document.body.innerText')) as string;
  return FORBIDDEN.filter(([, re]) => re.test(text)).map(([name, re]) => `${name}: ${text.match(re)?.[0]}`);
}

/** What must never name a field, a choice, a heading or a result: the above, and the API's snake_case names. */
export const LABEL_FORBIDDEN: [string, RegExp][] = [...FORBIDDEN, ['snake_case name', /\b[a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9]\b/], ['scope', /\b(?:tenant|site):[\w-]+/]];

/** The words a person reads as names on a screen: labels, headings, choices, buttons, column heads, results, summaries. */
const LABEL_SELECTOR = 'main label, main legend, main h1, main h2, main h3, main h4, main th, main dt, main option, main button, main .result dd, main .command-summary, main .confirm, main .field-hint, main .field-unit, main [role="tab"]';

/** Each label-like text on the page that breaks LABEL_FORBIDDEN, as "<what>: <text>". */
export async function labelProblemsOn(page: Page, within = 'body'): Promise<string[]> {
  const texts = (await page.locator(within).first().evaluate(
    (root, sel) => [...root.querySelectorAll(sel as string)].map((e) => (e as unknown as { innerText?: string }).innerText ?? e.textContent ?? '').filter((t) => t.trim() !== ''),
    LABEL_SELECTOR.replace(/main /g, ''),
  )) as string[];
  const out: string[] = [];
  for (const t of texts) for (const [name, re] of LABEL_FORBIDDEN) if (re.test(t)) out.push(`${name}: ${t.trim().slice(0, 120)}`);
  return [...new Set(out)];
}
