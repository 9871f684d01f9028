// Farm words for what the box calls by internal names: the modules (Core, Authentication, Tables
// and Forms are the kernel's; a farm reads "System", "Sign-in and access", ...), which of them an
// operator is offered, and command summaries without HTTP codes or contract sections.
import type { ModuleRecord } from './types';

interface Words { name: string; description: string; operator: boolean }

/** operator: offered to operators (when their role may also list its records); the rest is admin work. */
const MODULES: Record<string, Words> = {
  alarms: { name: 'Alarms', description: 'Every alarm of the site: see it, acknowledge it.', operator: true },
  'alarm-view': { name: 'Alarm overview', description: 'What the box announces: every alarm of every house, room and field, counted by priority.', operator: false },
  poultry: { name: 'Poultry', description: 'Houses, flocks, climate, feed and water, production.', operator: true },
  swine: { name: 'Swine', description: 'Rooms and pens: climate, feeding, water, production and biosecurity.', operator: true },
  melioration: { name: 'Melioration', description: 'Fields, irrigation, soil moisture, weather and the water balance.', operator: true },
  tasks: { name: 'Tasks', description: 'Work to do: who does it and by when.', operator: true },
  industry: { name: 'Equipment and alarms', description: 'Equipment profiles of the controllers, and the alarms of every house, room and field.', operator: false },
  'device-polling': { name: 'Controllers', description: 'Reading the house and room controllers, and whether each one answers.', operator: false },
  devices: { name: 'Sensor readings', description: 'Readings of the sensors and meters, by the minute and by the hour.', operator: false },
  status: { name: 'Live status', description: 'What the box and its devices report, as it happens.', operator: false },
  core: { name: 'System', description: 'The box itself: its modules, their versions and their state.', operator: false },
  auth: { name: 'Sign-in and access', description: 'Who may do what, and the security log.', operator: false },
  passkeys: { name: 'Cards and badges', description: 'Login cards and QR badges: issue and revoke.', operator: false },
  tables: { name: 'Records', description: 'Record tables set up for this site.', operator: false },
  forms: { name: 'Forms', description: 'Forms set up for this site.', operator: false },
  audit: { name: 'Audit trail', description: 'Who did what, and when.', operator: false },
  shell: { name: 'Screen settings', description: 'Menus, quick buttons and themes of the tablets, with their history.', operator: false },
  field: { name: 'Controller writes', description: 'Setpoints written to the controllers, checked by reading them back.', operator: false },
  analytics: { name: 'Fleet figures', description: 'Figures across the farms and sites.', operator: false },
  subscriptions: { name: 'Subscriptions', description: 'The farms\' subscriptions and their response times.', operator: false },
  'sla-profiles': { name: 'Response times', description: 'How fast alarms must be answered, and who is called next.', operator: false },
  'version-policies': { name: 'Software versions', description: 'Which versions of each module the sites may run.', operator: false },
  'tenant-master': { name: 'Farm messages', description: 'Messages between the farms and the fleet.', operator: false },
  'tenant-master-sync': { name: 'Site synchronisation', description: 'Whether each site is in step with the fleet.', operator: false },
};

/** The module in farm words (its own name when the shell does not know it). */
export function inFarmWords(m: ModuleRecord): ModuleRecord {
  const w = MODULES[m.id];
  return w ? { ...m, name: w.name, description: w.description } : { ...m, description: plainSummary(m.description) };
}

/** Whether this role is offered the module at all (its records must also be listable). */
export function offeredTo(role: string, m: ModuleRecord): boolean {
  if (role !== 'operator') return true;
  return MODULES[m.id]?.operator ?? m.industry_scope === 'industry';
}

/** What the common commands do, said for the person about to do it. */
const COMMANDS: Record<string, string> = {
  ack: 'Acknowledge this alarm: you have seen it and take it on; it stops escalating.',
  escalate: 'Escalate this alarm to the next person on call now.',
  'passkeys:issue': 'A login card or QR badge for one person. Its code is shown once, to print or to hand over.',
  'passkeys:revoke': 'This card or badge no longer logs in, and whoever is logged in with it is logged out.',
  'poultry-flock:place': 'Place a flock in a house: its climate targets by age come from the climate curve you choose.',
  'poultry-flock:close': 'The flock has left the house (depletion). Its records are kept.',
  'poultry-climate:telemetry': 'A climate reading of a house, typed in: it is checked against the targets for the flock\'s age.',
  'poultry-production:ingest': 'A house\'s day: dead and culled birds, weight, feed and water. A second record of the same day replaces the first.',
  'poultry-feedwater:ingest': 'The feed and water meters of a house, read now: today\'s use is checked against what the birds should use at their age.',
  'poultry-feedwater:set-thresholds': 'When feed and water use, line pressure and their ratio warn or raise an alarm, for a house and batch.',
};

/** Command buttons in farm words, by "<resource>:<command>" or by command: "Record a day", not "Ingest". */
const LABELS: Record<string, string> = {
  ack: 'Acknowledge',
  'passkeys:issue': 'Issue a card or badge',
  'passkeys:revoke': 'Revoke',
  'device-credentials:issue': 'Issue a device login',
  'poultry-flock:place': 'Place a flock',
  'poultry-flock:close': 'Close the flock',
  'poultry-climate:setpoint': 'Propose new targets',
  'poultry-climate:ack': 'Confirm and send to the controller',
  'poultry-climate:telemetry': 'Enter a reading',
  'poultry-feedwater:ingest': 'Enter meter readings',
  'poultry-feedwater:set-thresholds': 'Set the warning limits',
  'poultry-production:ingest': 'Record a day',
  'poultry-profiles:import-yaml': 'Import a profile',
  'poultry-profiles:export-yaml': 'Export a profile',
  'industry-profiles:import': 'Import a profile',
  'industry-profiles:export': 'Export a profile',
  'devices/telemetry:ingest': 'Enter readings',
  'audit:log': 'Add an entry',
  'status:publish': 'Report a status',
  'alarms:raise': 'Raise an alarm',
  'tasks:transition': 'Move the task',
  'out-of-service': 'Take out of service',
  'return-to-service': 'Return to service',
};

/** A command's button label: "Acknowledge", not "Ack"; "Record a day", not "Ingest". */
export function commandLabel(name: string, resource?: string): string {
  const s = (resource ? LABELS[`${resource}:${name}`] : undefined) ?? LABELS[name] ?? name.replace(/[_-]+/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A command's summary in farm words: the known commands' own, else the API's without codes or field names. */
export function commandWords(name: string, summary: string, resource?: string): string {
  return (resource ? COMMANDS[`${resource}:${name}`] : undefined) ?? COMMANDS[name] ?? plainSummary(summary);
}

const CODE = /\b[1-5]\d\d\s+[a-z]+(?:_[a-z]+)+\b|\bcontract\b|\bkernel\b|\b[a-z0-9]+_[a-z0-9_]+\b|\btenant:/i;

/** A command's summary without HTTP codes, error codes or contract sections: the clauses that carry them are left out. */
export function plainSummary(text: string): string {
  const noParens = text.replace(/\s*\([^()]*\)/g, (m) => (CODE.test(m) ? '' : m));
  const clauses = noParens.split(/(?<=[.;])\s+/).filter((c) => !CODE.test(c));
  const out = clauses.join(' ').replace(/;\s*$/, '.').trim();
  return out || 'Confirm to go on.';
}
