// Farm words for what the box calls by internal names: the modules (Core, Authentication, Tables
// and Forms are the kernel's; a farm reads "System", "Sign-in and access", ...), which of them an
// operator is offered, and command buttons and summaries without HTTP codes or contract sections.
// The words are the catalogue's (src/i18n/messages/<lang>/modules.json), read when shown:
//   modules.<id>.name, modules.<id>.description     a module
//   modules.button.<resource>.<command>             a command's button (modules.button.<command>: on any resource)
//   modules.summary.<resource>.<command>            what it does (modules.summary.<command>: on any resource)
//   modules.tab.<resource>                          a resource as a tab of its module's screen
import { known } from './field-words';
import { t } from './i18n';
import type { ModuleRecord } from './types';

/** Modules offered to operators (when their role may also list its records); the rest is admin work. */
const OPERATOR_MODULES = new Set(['alarms', 'poultry', 'swine', 'melioration', 'tasks']);
/** Whether the shell has farm words for the module (modules.<id>.name in the catalogue). */
const named = (id: string) => known(`modules.${id}.name`) !== undefined;

/** A module's name in the reader's words (its own name when the shell does not know it). */
export function moduleName(m: Pick<ModuleRecord, 'id' | 'name'>): string {
  return known(`modules.${m.id}.name`) ?? m.name;
}

/**
 * The module in farm words. The name and the description are read when used (getters): the
 * session keeps this record while the reader may change the language, and every screen that shows
 * the module then reads it in the language of the moment.
 */
export function inFarmWords(m: ModuleRecord): ModuleRecord {
  if (!named(m.id)) return { ...m, description: plainSummary(m.description) };
  const out = { ...m };
  Object.defineProperties(out, {
    name: { get: () => known(`modules.${m.id}.name`) ?? m.name, enumerable: true, configurable: true },
    description: { get: () => known(`modules.${m.id}.description`) ?? plainSummary(m.description), enumerable: true, configurable: true },
  });
  return out;
}

/** Whether this role is offered the module at all (its records must also be listable). */
export function offeredTo(role: string, m: ModuleRecord): boolean {
  if (role !== 'operator') return true;
  return named(m.id) ? OPERATOR_MODULES.has(m.id) : m.industry_scope === 'industry';
}

/** The catalogue's words for a command: "<kind>.<resource>.<command>", else "<kind>.<command>". */
const commandKey = (kind: 'button' | 'summary', name: string, resource?: string) => (resource ? known(`modules.${kind}.${resource}.${name}`) : undefined) ?? known(`modules.${kind}.${name}`);

/** A command's button label: "Acknowledge", not "Ack"; "Record a day", not "Ingest". */
export function commandLabel(name: string, resource?: string): string {
  const s = commandKey('button', name, resource) ?? name.replace(/[_-]+/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A command's summary in farm words: the known commands' own, else the API's without codes or field names. */
export function commandWords(name: string, summary: string, resource?: string): string {
  return commandKey('summary', name, resource) ?? plainSummary(summary);
}

/** A resource as a tab of its module's screen ("Flocks" under Poultry), or undefined when the catalogue does not name it. */
export function tabWords(resource: string): string | undefined {
  return known(`modules.tab.${resource}`);
}

const CODE = /\b[1-5]\d\d\s+[a-z]+(?:_[a-z]+)+\b|\bcontract\b|\bkernel\b|\b[a-z0-9]+_[a-z0-9_]+\b|\btenant:/i;

/** A command's summary without HTTP codes, error codes or contract sections: the clauses that carry them are left out. */
export function plainSummary(text: string): string {
  const noParens = text.replace(/\s*\([^()]*\)/g, (m) => (CODE.test(m) ? '' : m));
  const clauses = noParens.split(/(?<=[.;])\s+/).filter((c) => !CODE.test(c));
  const out = clauses.join(' ').replace(/;\s*$/, '.').trim();
  return out || t('modules.summary.confirm');
}
