import { formatTime } from '../lib/format';

/** The mark on data that is not live: the controller did not answer, this is what it said last. */
export function StaleNote({ at }: { at: string }) {
  return (
    <p class="stale-note" role="status">
      <strong>Stale:</strong> the controller does not answer; last known data from {formatTime(at)}.
    </p>
  );
}
