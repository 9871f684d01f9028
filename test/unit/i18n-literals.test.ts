// No word a person reads is written in the shell's code: it comes from the catalogue.
import { writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { findLiterals, shellFiles } from '../../scripts/i18n-literals.js';

describe('user-visible literals in the shell', () => {
  it('the scan finds JSX text, text attributes and prose strings, and passes code and t() keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'literals-'));
    const file = join(dir, 'Sample.tsx');
    writeFileSync(file, [
      "import { t } from './i18n';",
      "export const A = () => <p class=\"card big\">Hello there</p>;",
      "export const B = () => <button aria-label=\"Close the menu\" type=\"button\">{t('common.action.close')}</button>;",
      "export const C = (n: number) => n > 1 ? 'Several houses' : t('common.none');",
      "export const D = (x: string) => x === 'Active' ? '/api/v1/alarms' : `card-${x}`;",
      "// i18n-ok: a language's own name",
      "export const E = 'Русский';",
    ].join('\n'));
    const found = findLiterals([file]).map((l) => `${l.line}:${l.kind}:${l.text}`);
    expect(found).toEqual(['2:jsx-text:Hello there', '3:attribute:Close the menu', '4:string:Several houses']);
  });

  it('the shell has none outside the catalogue', () => {
    const found = findLiterals(shellFiles());
    expect(found.map((l) => `${l.file}:${l.line} [${l.kind}] ${l.text}`)).toEqual([]);
  });
});
