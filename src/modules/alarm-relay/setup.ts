// The siren and watchdog step of the site set-up screen, from the relay as it runs now.
import type { SetupCheck, SetupStep } from '../../kernel/setup.js';

export const alarmRelaySetup: SetupStep[] = [{
  id: 'siren',
  order: 50,
  title: 'setup.siren.title',
  screen: { module: 'alarm-relay' },
  async check({ alarmRelay, config }): Promise<SetupCheck> {
    if (config.mode !== 'edge-single') return { state: 'optional', key: 'setup.siren.master' };
    if (!alarmRelay) return { state: 'attention', key: 'setup.siren.not_running' };
    const siren = alarmRelay.config('siren');
    const watchdog = alarmRelay.config('watchdog');
    const failing = (['siren', 'watchdog'] as const).map((o) => alarmRelay.state(o)).filter((s) => s.failing);
    if (failing.length === 2) return { state: 'attention', key: 'setup.siren.failing_both' };
    if (failing[0]) {
      const f = failing[0];
      return { state: 'attention', key: 'setup.siren.failing', params: { output: f.output, seen: f.failing_since ? 'yes' : 'no', since_at: f.failing_since ?? '' } };
    }
    // "P1", "P2", or both (the message says "P1 and P2" in the reader's words).
    const priorities = (p: readonly string[]) => (p.length > 1 ? 'both' : p[0] ?? 'P1');
    if (!siren?.enabled && !watchdog?.enabled) return { state: 'missing', key: 'setup.siren.none' };
    if (!siren?.enabled) return { state: 'missing', key: 'setup.siren.no_siren' };
    if (!watchdog?.enabled) return { state: 'attention', key: 'setup.siren.no_watchdog', params: { priorities: priorities(siren.priorities) } };
    return { state: 'done', key: 'setup.siren.done', params: { priorities: priorities(siren.priorities), period: watchdog.period_s } };
  },
}];
