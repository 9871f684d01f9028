// What must never reach an operator's eyes on the shell's screens, checked on the page's text.
import type { Page } from 'playwright-core';

/** Tenants, ids, contract sections, HTTP status codes, passkey ids, a 12-hour clock. */
export const FORBIDDEN: [string, RegExp][] = [
  ['tenant', /tenant:/i],
  ['uuid', /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i],
  ['contract', /contract/i],
  ['http code', /\b(?:4\d\d|5\d\d)\b(?!\s*(?:°|%|ppm|min|h\b|m\b|kg|l\b|bar|birds))/],
  ['passkey id', /PK-/],
  ['12-hour clock', /\b\d{1,2}:\d{2}(?::\d{2})?\s?(?:AM|PM)\b/i],
];

export async function forbiddenOn(page: Page): Promise<string[]> {
  const text = (await page.evaluate('document.body.innerText')) as string;
  return FORBIDDEN.filter(([, re]) => re.test(text)).map(([name, re]) => `${name}: ${text.match(re)?.[0]}`);
}
