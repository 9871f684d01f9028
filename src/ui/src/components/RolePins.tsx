// Settings for a site admin: the quick buttons and the module order a role sees (operators at the
// panel by default), set once for everyone of that role (auth/ui-role-preferences). The box
// enforces who may set them; this section is only offered to those it allows.
import { useEffect, useState } from 'preact/hooks';
import { describeError, getList, post, query } from '../lib/api';
import { orderedModules, type Session } from '../lib/session';
import { offeredTo } from '../lib/words';

const ROLES = [
  { id: 'operator', label: 'Operators' },
  { id: 'security', label: 'Security' },
  { id: 'admin', label: 'Administrators' },
] as const;
interface RoleDefaults { role: string; quick_module_ids: string[] | null; module_order: string[] | null; modules?: string[] }

export function RolePins({ s }: { s: Session }) {
  const [role, setRole] = useState<string>('operator');
  const [order, setOrder] = useState<string[]>([]);
  const [pinned, setPinned] = useState<string[]>([]);
  const [set, setSet] = useState(false);
  const [opens, setOpens] = useState<string[] | null>(null);
  const [msg, setMsg] = useState('');
  const [error, setError] = useState('');
  const roleName = ROLES.find((r) => r.id === role)?.label ?? role;

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
      setMsg(`Saved: ${roleName.toLowerCase()} see these quick buttons and this order at their next login.`);
    } catch (err) {
      setError(describeError(err));
    }
  };

  return (
    <section class="panel" aria-labelledby="role-pins-h" id="role-pins">
      <h2 id="role-pins-h">Quick buttons and order for a role</h2>
      <label class="filter">
        <span>For</span>
        <select name="pins-role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value)}>
          {ROLES.map((r) => (
            <option key={r.id} value={r.id}>
              {r.label}
            </option>
          ))}
        </select>
      </label>
      <p class="muted">{set ? `Set for ${roleName.toLowerCase()}.` : `Not set yet: ${roleName.toLowerCase()} see the site's usual order.`}</p>
      <ol class="order-list" id="role-order">
        {mods.map((m, i) => (
          <li key={m.id} data-module={m.id}>
            <span class="order-name">{m.name}</span>
            <span class="order-actions">
              <button type="button" class="btn icon" aria-label={`${m.name} earlier for ${roleName.toLowerCase()}`} disabled={i === 0} onClick={() => move(i, -1)}>
                ▲
              </button>
              <button type="button" class="btn icon" aria-label={`${m.name} later for ${roleName.toLowerCase()}`} disabled={i === mods.length - 1} onClick={() => move(i, 1)}>
                ▼
              </button>
              <label class="check pin">
                <input
                  type="checkbox"
                  name={`role-pin-${m.id}`}
                  checked={pinned.includes(m.id)}
                  onChange={(e) => setPinned((e.target as HTMLInputElement).checked ? [...pinned.filter((x) => x !== m.id), m.id] : pinned.filter((x) => x !== m.id))}
                />
                Quick button
              </label>
            </span>
          </li>
        ))}
      </ol>
      <div class="actions">
        <button type="button" class="btn primary" id="role-pins-save" onClick={() => void save()}>
          Save for {roleName.toLowerCase()}
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
