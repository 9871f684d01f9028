// Shared pieces of the web shell's browser tests: Debian's Chromium through playwright-core (never a
// downloaded browser), RFID login at the panel, screenshots at the two tablet orientations (written
// to test/e2e/screenshots/, git-ignored) and an axe-core scan.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SHOTS = join(dirname(fileURLToPath(import.meta.url)), 'screenshots');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (sudo bash .ci/system-packages.sh)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

export const LANDSCAPE = { width: 1280, height: 800 };
export const PORTRAIT = { width: 800, height: 1280 };

/** A page that records uncaught errors and console errors (401s of ended sessions excepted). */
export async function newPage(browser: Browser, opts: { viewport?: { width: number; height: number } } = {}): Promise<{ page: Page; context: BrowserContext; problems: string[] }> {
  const context = await browser.newContext({ viewport: opts.viewport ?? LANDSCAPE });
  // Generous: it bounds only a failing wait, and a page load has taken over 8 s with three test
  // files and Chromium sharing two cores.
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    // Where it came from (script and line), so that a failure names the code that caused it.
    if (m.type() === 'error' && !/401|Failed to load resource|WebSocket/.test(m.text())) problems.push(`${m.text()} (at ${m.location().url || page.url()}:${m.location().lineNumber})`);
  });
  return { page, context, problems };
}

/** The USB reader types the card's credential and Enter into the focused card field. */
export async function rfidLogin(page: Page, url: string, credential: string): Promise<void> {
  await page.goto(url);
  await page.locator('#card').waitFor();
  await page.locator('#card').fill(credential);
  await page.keyboard.press('Enter');
  await page.locator('#home').waitFor({ state: 'visible' });
}

/** Screenshots of the current screen in landscape (1280x800) and portrait (800x1280). */
export async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const before = page.viewportSize() ?? LANDSCAPE;
  for (const [label, size] of [['landscape', LANDSCAPE], ['portrait', PORTRAIT]] as const) {
    await page.setViewportSize(size);
    await page.waitForTimeout(50);
    await page.screenshot({ path: join(SHOTS, `${name}-${label}-${size.width}x${size.height}.png`), fullPage: false });
  }
  await page.setViewportSize(before);
}

export interface AxeViolation { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }

/** axe-core's serious and critical violations on the current screen (WCAG 2 A/AA rules). */
export async function axeSerious(page: Page): Promise<string[]> {
  // evaluated over the DevTools protocol: the page's own CSP (no inline scripts) stays in force
  if (!(await page.evaluate(`'axe' in window`))) await page.evaluate(readFileSync(AXE, 'utf8'));
  // Browser-side code as strings: this program has no DOM types (the server's tsconfig).
  const violations = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((r) => r.violations)`,
  )) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')})`);
}

/** The current theme of the page (html[data-theme]). */
export const themeOf = (page: Page): Promise<string> => page.evaluate(`document.documentElement.dataset.theme`) as Promise<string>;

/** Elements a finger must hit that are smaller than 48x48 CSS px. */
export async function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const out = [];
    for (const el of document.querySelectorAll('button, a.btn, select, input:not([type=checkbox]):not([type=radio]), .menu a, label.check, label.choice')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue; // not shown
      if (r.height < 47.5 || r.width < 47.5) out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' "' + (el.textContent || '').trim().slice(0, 30) + '" ' + Math.round(r.width) + 'x' + Math.round(r.height));
    }
    return out;
  })()`) as Promise<string[]>;
}
