// The configuration, error and decision tables of docs/, generated from the code that enforces
// them. `npm run docs` rewrites them in their pages; a test fails when they drift.
import { SETTINGS, flagOf, envOf } from '../config.js';
import { ERROR_CODES } from '../kernel/errors.js';
import { DECISIONS } from '../kernel/decisions.js';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function configTable(): string {
  const rows = SETTINGS.map((s) => {
    const dflt = s.defaultText ?? (s.default === '' ? '(empty)' : `\`${JSON.stringify(s.default)}\``);
    return `| \`${s.key}\` | \`${flagOf(s.key)}\` / \`${envOf(s.key)}\` | ${cell(dflt)} | ${cell(s.allowed)} | ${cell(s.description)} |`;
  });
  return ['| setting | flag / environment | default | allowed | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

export function errorTable(): string {
  const rows = Object.entries(ERROR_CODES).sort((a, b) => a[1].status - b[1].status).map(([code, e]) => `| \`${code}\` | ${e.status} | ${cell(e.when)} |`);
  return ['| code | HTTP | when |', '|---|---|---|', ...rows].join('\n');
}

export function decisionList(): string {
  return DECISIONS.map((d) => `- **${d.topic}**: ${d.decision}`).join('\n');
}

export const BLOCKS: Record<string, () => string> = { config: configTable, errors: errorTable, decisions: decisionList };

/** The page (relative to the repository) that carries each generated block. */
export const BLOCK_PAGES: Record<string, string> = {
  config: 'docs/configuration.md',
  errors: 'docs/errors-and-decisions.md',
  decisions: 'docs/errors-and-decisions.md',
};

/** The pages that carry generated blocks. */
export const GENERATED_PAGES = [...new Set(Object.values(BLOCK_PAGES))];

/** A page's text with every generated block it must carry replaced by its current content. */
export function renderPage(page: string, text: string): string {
  let out = text;
  for (const [name, make] of Object.entries(BLOCKS)) {
    if (BLOCK_PAGES[name] !== page) continue;
    const re = new RegExp(`(<!-- ${name}:start -->)[\\s\\S]*?(<!-- ${name}:end -->)`);
    if (!re.test(out)) throw new Error(`${page} has no ${name} block`);
    out = out.replace(re, (_m, a: string, b: string) => `${a}\n${make()}\n${b}`);
  }
  return out;
}
