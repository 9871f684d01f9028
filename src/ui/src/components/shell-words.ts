// The shell frame's names for the box's codes, in the reader's language: industries, roles and
// modules (src/i18n/messages/<lang>/shell.json). A code the catalogue does not know (a module
// added later, an industry of a newer box) is shown as the box names it, so nothing goes blank.
import { known } from '../lib/field-words';
import { humanise } from '../lib/format';
import { boxText, t } from '../lib/i18n';

/** "Poultry", "Swine", "Melioration"; another code in the box's own spelling. */
export function industryName(code: string): string {
  const words = t('shell.industry.name', { code });
  return words || humanise(code);
}

/** The person's role in words: "Operator", "Admin", "Security". */
export function roleName(role: string): string {
  const words = t('shell.role.name', { role });
  return words || humanise(role);
}

/** A module's name (menu, dashboard tile, pinned button): its farm words (modules.<id>.name, "System" not "Core"), else the catalogue's, else the box's. */
export function moduleName(m: { id: string; name: string }): string {
  return known(`modules.${m.id}.name`) ?? boxText(`shell.module.${m.id}`, null, m.name);
}

/** A module's line on its dashboard tile: the catalogue's, else the box's. */
export function moduleAbout(m: { id: string; description?: string | null }): string {
  return known(`modules.${m.id}.description`) ?? (m.description ? boxText(`shell.module.${m.id}.about`, null, m.description) : '');
}
