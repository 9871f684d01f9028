// A fleet command that asks why before it runs (hold a site's updates, pause or abort a rollout):
// the button opens a small form with the reason (required where the record keeps it), then the
// command runs; its refusal is shown in words beside the form, which keeps what was typed.
import { useState } from 'preact/hooks';
import { describeError, post } from '../../lib/api';
import { t } from '../../lib/i18n';

export interface ReasonActionProps {
  /** data-action of the button, and the form's id stem. */
  action: string;
  /** Unique on the page (a site or rollout id): the form's id. */
  owner: string;
  label: string;
  /** The form's question ("Why hold this site's updates?"). */
  question: string;
  submit: string;
  busyLabel: string;
  required: boolean;
  primary?: boolean;
  path: string;
  body: (reason: string) => Record<string, unknown>;
  onDone: () => void;
}

export function ReasonAction(p: ReasonActionProps) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const id = `${p.action}-${p.owner.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  const run = async (e: Event) => {
    e.preventDefault();
    const why = reason.trim();
    if (p.required && !why) {
      setError(t('fleet.action.reason_needed'));
      return;
    }
    setBusy(true);
    setError('');
    try {
      await post(p.path, p.body(why));
      setReason('');
      setOpen(false);
      p.onDone();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="reason-action">
      <button type="button" class={`btn${p.primary ? ' primary' : ''}`} data-action={p.action} aria-expanded={open} aria-controls={id} onClick={() => {
          setOpen(!open);
          setError('');
        }}>
        {p.label}
      </button>
      {open ? (
        <form class="reason-form" id={id} data-form={p.action} noValidate onSubmit={(e) => void run(e)}>
          <label class="form-row">
            <span>{p.question}</span>
            <input name="reason" type="text" maxLength={1000} aria-required={p.required ? 'true' : undefined} value={reason} onInput={(e) => {
                setReason(e.currentTarget.value);
                setError('');
              }} />
          </label>
          <div class="actions">
            <button type="submit" class="btn primary" disabled={busy}>
              {busy ? p.busyLabel : p.submit}
            </button>
            <button type="button" class="btn" onClick={() => setOpen(false)}>
              {t('common.action.cancel')}
            </button>
          </div>
        </form>
      ) : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
