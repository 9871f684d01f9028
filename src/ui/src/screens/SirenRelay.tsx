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
import { session, type Session } from '../lib/session';
import { useObservable } from '../lib/store';

const API = '/api/v1/alarm-relay';
const HEADINGS = { siren: 'Siren', watchdog: 'Watchdog' } as const;
const ABOUT = {
  siren: 'An outside siren or beacon on a relay: energised while an alarm of its priorities waits for acknowledgement.',
  watchdog: 'An output the box switches on and off while it is healthy: a dialler wired to it calls when it stops.',
};

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
      setError(r.stale ? 'The box does not answer: this is the last known state.' : null);
      if (r.data.items.some((o) => o.failing)) void refreshAlarms();
    } catch (err) {
      setError(describeError(err));
    }
  };
  useEffect(() => {
    void load();
    const t = setInterval(() => void load(), fast ? 500 : 3_000);
    return () => clearInterval(t);
  }, [fast]);
  if (!s) return null;
  const configure = may(s, 'configure');
  const test = may(s, 'test');
  const put = (o: OutputView) => setOutputs((all) => (all ?? []).map((x) => (x.output === o.output ? o : x)));

  return (
    <section class="siren-relay" data-screen="SirenRelay" aria-labelledby="siren-relay-h">
      <h1 id="siren-relay-h">Siren and watchdog</h1>
      {configure ? null : <p class="muted" data-field="read-only">Only the box's admin sets these outputs up; you see their state.</p>}
      {error ? <p class="error" role="alert">{error}</p> : null}
      {!outputs ? (error ? null : <p class="loading">Loading...</p>) : outputs.length === 0 ? (
        <p class="notice">This installation has no siren or watchdog of its own: they belong to a farm's box.</p>
      ) : (
        <div class="relay-outputs">
          {outputs.map((o) => {
            const open = editing.has(o.output) || (configure && !o.configured);
            const toggle = () => setEditing((e) => { const n = new Set(e); if (n.has(o.output)) n.delete(o.output); else n.add(o.output); return n; });
            return (
              <section class="panel relay-output" key={o.output} data-relay={o.output} aria-labelledby={`relay-${o.output}-h`}>
                <h2 id={`relay-${o.output}-h`}>{HEADINGS[o.output]}</h2>
                <p class="muted">{ABOUT[o.output]}</p>
                <OutputState o={o} />
                {o.output === 'siren' && test && o.configured && o.enabled ? <TestPulse onStart={() => setFast(true)} onEnd={() => { setFast(false); void load(); }} /> : null}
                {configure && o.configured ? (
                  <button type="button" class="btn" data-action="edit" aria-expanded={open} onClick={toggle}>
                    {open ? 'Close the settings' : 'Change the settings'}
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
