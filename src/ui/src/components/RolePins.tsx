// Settings for a site admin: the quick buttons and the module order a role sees (operators at the
// panel by default), set once for everyone of that role (auth/ui-role-preferences). The box
// enforces who may set them; this section is only offered to those it allows.
import { useEffect, useState } from 'preact/hooks';
import { describeError, getList, post, query } from '../lib/api';
import { t } from '../lib/i18n';
import { orderedModules, type Session } from '../lib/session';
import { offeredTo } from '../lib/words';

/** The roles whose defaults are set here; each sentence about one names it by a select on its id (forms.pins.*). */
const ROLES = ['operator', 'security', 'admin'] as const;
interface RoleDefaults { role: string; quick_module_ids: string[] | null; module_order: string[] | null; modules?: string[] }

export function RolePins({ s }: { s: Session }) {
  const [role, setRole] = useState<string>('operator');
  const [order, setOrder] = useState<string[]>([]);
  const [pinned, setPinned] = useState<string[]>([]);
  const [set, setSet] = useState(false);
  const [opens, setOpens] = useState<string[] | null>(null);
  const [msg, setMsg] = useState('');
  const [error, setError] = useState('');

  useEffect(() => {
    setMsg('');
    setError('');
    getList<RoleDefaults>(`/api/v1/auth/ui-role-preferences/list${query({ industry_code: s.industry })}`)
      .then((r) => {
        const mine = r.data.items.find((x) => x.role === role);
        setOrder(mine?.module_order ?? []);
        setPinned(mine?.quick_module_ids ?? []);
        setOpens(mine?.modules ?? null);
        setSet(!!(mine?.module_order || mine?.quick_module_ids));
      })
      .catch((err) => setError(describeError(err)));
  }, [role]);

  // only what the role may open: the box refuses a quick button it could not use
  // (the box's list), and what the shell offers that role at all (farm work for operators)
  const mods = orderedModules(s, order).filter((m) => (!opens || opens.includes(m.id)) && offeredTo(role, m));
  const move = (i: number, d: -1 | 1) => {
    const ids = mods.map((m) => m.id);
    const j = i + d;
    if (j < 0 || j >= ids.length) return;
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
    setOrder(ids);
  };
  const save = async () => {
    setMsg('');
    setError('');
    try {
      await post('/api/v1/auth/ui-role-preferences/commands/set', { role, industry_code: s.industry, quick_module_ids: pinned.filter((id) => mods.some((m) => m.id === id)), module_order: mods.map((m) => m.id) });
      setSet(true);
      setMsg(t('forms.pins.saved', { role }));
    } catch (err) {
      setError(describeError(err));
    }
  };

  return (
    <section class="panel" aria-labelledby="role-pins-h" id="role-pins">
      <h2 id="role-pins-h">{t('forms.pins.title')}</h2>
      <label class="filter">
        <span>{t('forms.pins.for')}</span>
        <select name="pins-role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {t('forms.pins.role', { role: r })}
            </option>
          ))}
        </select>
      </label>
      <p class="muted">{set ? t('forms.pins.isSet', { role }) : t('forms.pins.notSet', { role })}</p>
      <ol class="order-list" id="role-order">
        {mods.map((m, i) => (
          <li key={m.id} data-module={m.id}>
            <span class="order-name">{m.name}</span>
            <span class="order-actions">
              <button type="button" class="btn icon" aria-label={t('forms.pins.earlier', { module: m.name, role })} disabled={i === 0} onClick={() => move(i, -1)}>
                ▲
              </button>
              <button type="button" class="btn icon" aria-label={t('forms.pins.later', { module: m.name, role })} disabled={i === mods.length - 1} onClick={() => move(i, 1)}>
                ▼
              </button>
              <label class="check pin">
                <input
                  type="checkbox"
                  name={`role-pin-${m.id}`}
                  checked={pinned.includes(m.id)}
                  onChange={(e) => setPinned((e.target as HTMLInputElement).checked ? [...pinned.filter((x) => x !== m.id), m.id] : pinned.filter((x) => x !== m.id))}
                />
                {t('forms.pins.quick')}
              </label>
            </span>
          </li>
        ))}
      </ol>
      <div class="actions">
        <button type="button" class="btn primary" id="role-pins-save" onClick={() => void save()}>
          {t('forms.pins.save', { role })}
        </button>
      </div>
      <p class="role-pins-status" role="status">
        {msg}
      </p>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
