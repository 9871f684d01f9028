// A module's screen: each of its resources through the generic renderer (tabs when several).
import { useState } from 'preact/hooks';
import { ResourceView } from '../components/ResourceView';
import { humanise } from '../lib/format';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';
import { MODULE_SCREENS, RESOURCE_SCREENS } from './module-screens';

/** A tab in the module's own words: "Flock", not "Poultry flock" under the Poultry heading. */
function tabName(module: string, path: string): string {
  const last = path.split('/').pop() ?? path;
  return humanise(last.startsWith(`${module}-`) ? last.slice(module.length + 1) : last);
}

export function ModuleScreen({ id }: { id: string }) {
  const s = useObservable(session);
  const [tab, setTab] = useState<string | null>(null);
  const m = s?.modules.find((x) => x.id === id);
  if (!s || !m) {
    return (
      <section class="panel">
        <h1>Not available</h1>
        <p>This screen is not installed on this controller, or it is not part of your work.</p>
      </section>
    );
  }
  const Own = MODULE_SCREENS[m.id];
  if (Own)
    return (
      <div class="module-screen" data-module-screen={m.id}>
        <Own />
      </div>
    );
  const resources = s.resources.get(m.id) ?? [];
  const current = tab && resources.includes(tab) ? tab : resources[0];
  const OwnTab = current ? RESOURCE_SCREENS[current] : undefined;
  return (
    <div class="module-screen" data-module-screen={m.id}>
      <h1>{m.name}</h1>
      {resources.length > 1 ? (
        <div class="tabs" role="tablist" aria-label={`${m.name} resources`}>
          {resources.map((r) => (
            <button type="button" role="tab" key={r} aria-selected={r === current} class={`btn tab ${r === current ? 'chosen' : ''}`} onClick={() => setTab(r)}>
              {tabName(m.id, r)}
            </button>
          ))}
        </div>
      ) : null}
      {OwnTab ? <OwnTab key={current} /> : current ? <ResourceView key={current} path={current} /> : <p class="empty">This module has no records to show.</p>}
    </div>
  );
}
