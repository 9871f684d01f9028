// What a person may do with one alarm, from wherever it is shown: acknowledge, comment, shelve with
// a reason and a duration, unshelve, reset. Each is offered only where the box says it applies to
// the alarm's state (item.applicable) and the person's role may run it (the session's policy), so
// "Unshelve" never shows on an alarm that is not shelved. A failed command says why in words and
// keeps what was typed. Every target is at least 48 px: the crew wear gloves.
import { useState } from 'preact/hooks';
import { alarmCommand, mayDo } from '../lib/alarms';
import { describeError } from '../lib/api';
import { t } from '../lib/i18n';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';
import type { AlarmAction, AlarmViewItem } from '../lib/types';

/** A shelve ends by itself within a shift (the box allows 1 to 480 minutes). */
export const SHELVE_CHOICES = [15, 60, 240, 480] as const;

/** "15 min", "1 h": a shelve's length in the reader's words. */
export function shelveWords(minutes: number): string {
  return minutes < 60 ? t('alarms.shelve.minutes', { n: minutes }) : t('alarms.shelve.hours', { n: minutes / 60 });
}

const COMMENT_MAX = 2000;

type Panel = 'comment' | 'shelve' | 'reset' | null;

export function AlarmActions({ a, open, onOpen }: { a: AlarmViewItem; open?: boolean; onOpen?: () => void }) {
  const s = useObservable(session);
  const [panel, setPanel] = useState<Panel>(null);
  const [busy, setBusy] = useState<AlarmAction | null>(null);
  const [error, setError] = useState('');
  const [comment, setComment] = useState('');
  const [reason, setReason] = useState('');
  const [minutes, setMinutes] = useState<number | null>(null);
  const [resetNote, setResetNote] = useState('');
  if (!s) return null;
  const may = (action: AlarmAction) => mayDo(s, a, action);
  const id = a.key.replace(/[^a-zA-Z0-9_-]/g, '_');

  /** Runs a command; the form's text stays unless it succeeded. */
  const run = async (action: AlarmAction, body?: Record<string, unknown>): Promise<boolean> => {
    setBusy(action);
    setError('');
    try {
      await alarmCommand(a, action, body);
      return true;
    } catch (err) {
      setError(describeError(err));
      return false;
    } finally {
      setBusy(null);
    }
  };
  const toggle = (p: Exclude<Panel, null>) => {
    setError('');
    setPanel(panel === p ? null : p);
  };

  const saveComment = async (e: Event) => {
    e.preventDefault();
    const text = comment.trim();
    if (!text) {
      setError(t('alarms.comment.empty'));
      return;
    }
    if (await run('comment', { text })) {
      setComment('');
      setPanel(null);
    }
  };
  const shelve = async (e: Event) => {
    e.preventDefault();
    const why = reason.trim();
    if (!why || minutes === null) {
      setError(!why ? t('alarms.shelve.noReason') : t('alarms.shelve.noDuration'));
      return;
    }
    if (await run('shelve', { reason: why, minutes })) {
      setReason('');
      setMinutes(null);
      setPanel(null);
    }
  };
  const reset = async (e: Event) => {
    e.preventDefault();
    const note = resetNote.trim();
    if (await run('reset', note ? { comment: note } : undefined)) {
      setResetNote('');
      setPanel(null);
    }
  };

  return (
    <div class="alarm-actions">
      <div class="inbox-actions">
        {may('ack') ? (
          <button type="button" class="btn primary" data-ack={a.key} data-action="ack" disabled={busy !== null} onClick={() => void run('ack')}>
            {busy === 'ack' ? t('alarms.action.acknowledging') : t('common.action.acknowledge')}
          </button>
        ) : null}
        {may('comment') ? (
          <button type="button" class="btn" data-action="comment" aria-expanded={panel === 'comment'} aria-controls={`comment-${id}`} onClick={() => toggle('comment')}>
            {t('alarms.action.comment')}
          </button>
        ) : null}
        {may('shelve') ? (
          <button type="button" class="btn" data-action="shelve" aria-expanded={panel === 'shelve'} aria-controls={`shelve-${id}`} onClick={() => toggle('shelve')}>
            {t('common.action.shelve')}
          </button>
        ) : null}
        {may('unshelve') ? (
          <button type="button" class="btn" data-action="unshelve" disabled={busy !== null} onClick={() => void run('unshelve')}>
            {busy === 'unshelve' ? t('alarms.action.unshelving') : t('alarms.action.unshelve')}
          </button>
        ) : null}
        {may('reset') ? (
          <button type="button" class="btn" data-action="reset" aria-expanded={panel === 'reset'} aria-controls={`reset-${id}`} onClick={() => toggle('reset')}>
            {t('alarms.action.reset')}
          </button>
        ) : null}
        {onOpen ? (
          <button type="button" class="btn" data-action="more" aria-expanded={open} onClick={onOpen}>
            {open ? t('alarms.action.less') : t('alarms.action.more')}
          </button>
        ) : null}
      </div>

      {panel === 'comment' && may('comment') ? (
        <form class="alarm-form" id={`comment-${id}`} data-form="comment" onSubmit={(e) => void saveComment(e)}>
          <label class="alarm-field">
            <span>{t('alarms.comment.label')}</span>
            <textarea name="text" rows={3} maxLength={COMMENT_MAX} value={comment} onInput={(e) => {
                setComment(e.currentTarget.value);
                setError('');
              }} />
          </label>
          <div class="inbox-actions">
            <button type="submit" class="btn primary" disabled={busy !== null}>
              {busy === 'comment' ? t('alarms.comment.saving') : t('alarms.comment.save')}
            </button>
            <button type="button" class="btn" onClick={() => toggle('comment')}>
              {t('common.action.cancel')}
            </button>
          </div>
        </form>
      ) : null}

      {panel === 'shelve' && may('shelve') ? (
        <form class="alarm-form" id={`shelve-${id}`} data-form="shelve" noValidate onSubmit={(e) => void shelve(e)}>
          <p class="muted alarm-form-lead">{t('alarms.shelve.lead')}</p>
          <label class="alarm-field">
            <span>{t('alarms.shelve.why')}</span>
            <input name="reason" type="text" maxLength={500} aria-required="true" value={reason} onInput={(e) => {
                setReason(e.currentTarget.value);
                setError('');
              }} />
          </label>
          <fieldset class="alarm-durations">
            <legend>{t('alarms.shelve.howLong')}</legend>
            {SHELVE_CHOICES.map((m) => (
              <label key={m} class={`choice ${minutes === m ? 'chosen' : ''}`}>
                <input type="radio" name={`minutes-${id}`} value={m} checked={minutes === m} onChange={() => {
                    setMinutes(m);
                    setError('');
                  }} />
                {shelveWords(m)}
              </label>
            ))}
          </fieldset>
          <div class="inbox-actions">
            <button type="submit" class="btn primary" disabled={busy !== null}>
              {busy === 'shelve' ? t('alarms.shelve.shelving') : t('alarms.shelve.submit')}
            </button>
            <button type="button" class="btn" onClick={() => toggle('shelve')}>
              {t('common.action.cancel')}
            </button>
          </div>
        </form>
      ) : null}

      {panel === 'reset' && may('reset') ? (
        <form class="alarm-form" id={`reset-${id}`} data-form="reset" onSubmit={(e) => void reset(e)}>
          <p class="alarm-form-lead">{t('alarms.reset.lead')}</p>
          <label class="alarm-field">
            <span>{t('alarms.reset.note')}</span>
            <input name="comment" type="text" maxLength={COMMENT_MAX} value={resetNote} onInput={(e) => setResetNote(e.currentTarget.value)} />
          </label>
          <div class="inbox-actions">
            <button type="submit" class="btn primary" disabled={busy !== null}>
              {busy === 'reset' ? t('alarms.reset.resetting') : t('alarms.reset.submit')}
            </button>
            <button type="button" class="btn" onClick={() => toggle('reset')}>
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
