// One labelled form row: its hint, and what is wrong with it (as typed, or the box's refusal),
// tied to the input for screen readers.
import type { ComponentChildren } from 'preact';
import type { ErrorDetail } from '../../lib/api';
import { issueText } from '../../lib/error-words';
import { t } from '../../lib/i18n';

export function Row({ id, label, hint, problem, children }: { id: string; label: string; hint?: string; problem?: string; children: ComponentChildren }) {
  return (
    <div class="form-row" data-row={id}>
      <label for={id}>{label}</label>
      {children}
      {hint && !problem ? <small class="muted" id={`${id}-hint`}>{hint}</small> : null}
      <span class="field-error" id={`${id}-err`}>{problem ?? ''}</span>
    </div>
  );
}

/** The aria attributes of an input in a Row. */
export const described = (id: string, hint: boolean, problem: string | undefined) => ({
  'aria-describedby': [hint && !problem ? `${id}-hint` : '', `${id}-err`].filter(Boolean).join(' '),
  'aria-invalid': problem ? ('true' as const) : undefined,
});

export const valueOf = (e: Event) => (e.target as HTMLInputElement).value;
export const checkedOf = (e: Event) => (e.target as HTMLInputElement).checked;

/** The box's refusal of a field (details[].field "item.smtp_host") in this form's terms, in the reader's language. */
export function refusedFields(details: ErrorDetail[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of details) {
    const name = d.field.replace(/^item\./, '').split('.')[0] ?? '';
    const why = d.reason === 'unknown_language' ? t('notifications.form.language_unknown') : issueText(d);
    out[name] = t('notifications.form.refused', { why });
  }
  return out;
}
