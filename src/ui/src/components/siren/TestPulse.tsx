// "Test pulse": the siren energised for a few seconds whatever the alarms (alarm-relay/commands/test),
// then back to what the alarms ask for; what happened said in words, from the box's answer.
import { useState } from 'preact/hooks';
import { describeError, post } from '../../lib/api';
import { t } from '../../lib/i18n';
import { when } from '../alarm-words';

const SECONDS = 3;

interface Answer { ok: boolean; message: string | null; pulse_until: string }

export function TestPulse({ onStart, onEnd }: { onStart: () => void; onEnd: () => void }) {
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<{ ok: boolean; text: string } | null>(null);
  const pulse = async () => {
    setBusy(true);
    setSaid(null);
    onStart();
    try {
      const a = await post<Answer>('/api/v1/alarm-relay/commands/test', { seconds: SECONDS });
      setSaid(a.ok
        ? { ok: true, text: t('siren.pulse.ok', { time: when(a.pulse_until) }) }
        : { ok: false, text: t('siren.pulse.failed', { why: a.message ? 'yes' : 'no', message: a.message ?? '' }) });
      setTimeout(() => { setBusy(false); onEnd(); }, Math.max(0, Date.parse(a.pulse_until) - Date.now()) + 1_500);
    } catch (err) {
      setSaid({ ok: false, text: describeError(err) });
      setBusy(false);
      onEnd();
    }
  };
  return (
    <div class="relay-pulse">
      <button type="button" class="btn" data-action="pulse" disabled={busy} onClick={() => void pulse()}>
        {t('siren.pulse.button', { seconds: SECONDS })}
      </button>
      {said ? <p class={said.ok ? 'relay-answer' : 'error'} role={said.ok ? 'status' : 'alert'} data-field="pulse-result" data-ok={String(said.ok)}>{said.text}</p> : null}
    </div>
  );
}
