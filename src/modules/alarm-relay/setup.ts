// The siren and watchdog step of the site set-up screen, from the relay as it runs now.
import { siteTime, type SetupStep } from '../../kernel/setup.js';

export const alarmRelaySetup: SetupStep[] = [{
  id: 'siren',
  order: 50,
  title: 'Siren relay and watchdog',
  screen: { module: 'alarm-relay' },
  async check({ alarmRelay, config }) {
    if (config.mode !== 'edge-single') return { state: 'optional', words: 'The siren and the watchdog are a site box\'s: the master has none.' };
    if (!alarmRelay) return { state: 'attention', words: 'The siren relay is not running on this box just now; the log says why.' };
    const siren = alarmRelay.config('siren');
    const watchdog = alarmRelay.config('watchdog');
    const failing = (['siren', 'watchdog'] as const).map((o) => alarmRelay.state(o)).filter((s) => s.failing);
    if (failing.length) {
      const at = (s: (typeof failing)[number]) => (s.failing_since ? ` since ${siteTime(config, s.failing_since)}` : '');
      return { state: 'attention', words: failing.map((s) => `The ${s.output} output does not answer${at(s)}`).join('; ') + ': its alarm is open.' };
    }
    const noSiren = 'No siren output: an unacknowledged P1 sounds only on the tablets';
    const noWatchdog = 'no watchdog output: a dialler cannot tell that the box itself stopped';
    if (!siren?.enabled && !watchdog?.enabled) return { state: 'missing', words: `${noSiren}, and ${noWatchdog}.` };
    if (!siren?.enabled) return { state: 'missing', words: `${noSiren}. The watchdog output is set.` };
    if (!watchdog?.enabled) return { state: 'attention', words: `The siren sounds for ${siren.priorities.join(' and ')} alarms; ${noWatchdog}.` };
    return { state: 'done', words: `The siren sounds for ${siren.priorities.join(' and ')} alarms; the watchdog output toggles every ${watchdog.period_s} s while the box is healthy.` };
  },
}];
