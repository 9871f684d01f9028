// "The master does not answer since 14:05; shown as it was at 14:03": said on a screen that is read
// again every 10 s, so old data is never taken for the present state.
import { formatTime } from '../../lib/format';
import { t } from '../../lib/i18n';

export function ReachNote({ side, downSince, staleAt }: { side: 'master' | 'box'; downSince: string | null; staleAt: string | null }) {
  if (!downSince) return null;
  const since = formatTime(downSince);
  const text = side === 'master'
    ? (staleAt ? t('fleet.view.down_shown', { since, at: formatTime(staleAt) }) : t('fleet.view.down', { since }))
    : (staleAt ? t('updates.screen.down_shown', { since, at: formatTime(staleAt) }) : t('updates.screen.down', { since }));
  return (
    <p class="stale-note" role="status" data-down-since={downSince}>
      {text}
    </p>
  );
}
