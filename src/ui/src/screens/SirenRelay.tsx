// The installer's siren relay and watchdog screen (the menu's alarm relay entry): each output's
// live state in words (not set up, energised, released, failing since when, with its alarm), and
// for a role the box lets configure them, the output's form and, for the siren, a test pulse.
// Others see the state only. The state is read again every few seconds (every half second while
// a pulse runs): the relay has no live event of its own.
import { useEffect, useState } from 'preact/hooks';
import { OutputForm } from '../components/siren/OutputForm';
import { OutputState } from '../components/siren/OutputState';
import { TestPulse } from '../components/siren/TestPulse';
import type { OutputView } from '../components/siren/relay-draft';
import { refreshAlarms } from '../lib/alarms';
import { describeError, getList } from '../lib/api';
import { t, type MessageKey } from '../lib/i18n';
import { session, type Session } from '../lib/session';
import { useObservable } from '../lib/store';

const API = '/api/v1/alarm-relay';
const HEADINGS: Record<OutputView['output'], MessageKey> = { siren: 'siren.heading.siren', watchdog: 'siren.heading.watchdog' };
const ABOUT: Record<OutputView['output'], MessageKey> = { siren: 'siren.about.siren', watchdog: 'siren.about.watchdog' };

const may = (s: Session, cmd: string) => s.ctx.policy.permissions.api[`api:POST ${API}/commands/${cmd}`] === true;

export function SirenRelay() {
  const s = useObservable(session);
  const [outputs, setOutputs] = useState<OutputView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Set<string>>(new Set());
  const [fast, setFast] = useState(false);

  const load = async () => {
    try {
      const r = await getList<OutputView>(`${API}/list`);
      setOutputs(r.data.items);
      setError(r.stale ? t('siren.stale') : null);
      if (r.data.items.some((o) => o.failing)) void refreshAlarms();
    } catch (err) {
      setError(describeError(err));
    }
  };
  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), fast ? 500 : 3_000);
    return () => clearInterval(timer);
  }, [fast]);
  if (!s) return null;
  const configure = may(s, 'configure');
  const test = may(s, 'test');
  const put = (o: OutputView) => setOutputs((all) => (all ?? []).map((x) => (x.output === o.output ? o : x)));

  return (
    <section class="siren-relay" data-screen="SirenRelay" aria-labelledby="siren-relay-h">
      <h1 id="siren-relay-h">{t('siren.title')}</h1>
      {configure ? null : <p class="muted" data-field="read-only">{t('siren.read_only')}</p>}
      {error ? <p class="error" role="alert">{error}</p> : null}
      {!outputs ? (error ? null : <p class="loading">{t('siren.loading')}</p>) : outputs.length === 0 ? (
        <p class="notice">{t('siren.none')}</p>
      ) : (
        <div class="relay-outputs">
          {outputs.map((o) => {
            const open = editing.has(o.output) || (configure && !o.configured);
            const toggle = () => setEditing((e) => { const n = new Set(e); if (n.has(o.output)) n.delete(o.output); else n.add(o.output); return n; });
            return (
              <section class="panel relay-output" key={o.output} data-relay={o.output} aria-labelledby={`relay-${o.output}-h`}>
                <h2 id={`relay-${o.output}-h`}>{t(HEADINGS[o.output])}</h2>
                <p class="muted">{t(ABOUT[o.output])}</p>
                <OutputState o={o} />
                {o.output === 'siren' && test && o.configured && o.enabled ? <TestPulse onStart={() => setFast(true)} onEnd={() => { setFast(false); void load(); }} /> : null}
                {configure && o.configured ? (
                  <button type="button" class="btn" data-action="edit" aria-expanded={open} onClick={toggle}>
                    {t(open ? 'siren.settings.close' : 'siren.settings.open')}
                  </button>
                ) : null}
                {configure && open ? <OutputForm o={o} onSaved={(x) => { put(x); setEditing((e) => new Set(e).add(o.output)); }} /> : null}
              </section>
            );
          })}
        </div>
      )}
    </section>
  );
}
