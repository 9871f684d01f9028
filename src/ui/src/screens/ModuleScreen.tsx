// A module's screen: each of its resources through the generic renderer (tabs when several).
import { useState } from 'preact/hooks';
import { ResourceView } from '../components/ResourceView';
import { humanise } from '../lib/format';
import { t } from '../lib/i18n';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';
import { tabWords } from '../lib/words';
import { MODULE_SCREENS, RESOURCE_SCREENS } from './module-screens';

/** A tab in the module's own words: "Flock", not "Poultry flock" under the Poultry heading (the catalogue's, else from its path). */
function tabName(module: string, path: string): string {
  const last = path.split('/').pop() ?? path;
  return tabWords(path) ?? humanise(last.startsWith(`${module}-`) ? last.slice(module.length + 1) : last);
}

export function ModuleScreen({ id }: { id: string }) {
  const s = useObservable(session);
  const [tab, setTab] = useState<string | null>(null);
  const m = s?.modules.find((x) => x.id === id);
  if (!s || !m) {
    return (
      <section class="panel">
        <h1>{t('modules.screen.unavailable')}</h1>
        <p>{t('modules.screen.unavailableText')}</p>
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
        <div class="tabs" role="tablist" aria-label={t('modules.screen.tabs', { module: m.name })}>
          {resources.map((r) => (
            <button type="button" role="tab" key={r} aria-selected={r === current} class={`btn tab ${r === current ? 'chosen' : ''}`} onClick={() => setTab(r)}>
              {tabName(m.id, r)}
            </button>
          ))}
        </div>
      ) : null}
      {OwnTab ? <OwnTab key={current} /> : current ? <ResourceView key={current} path={current} /> : <p class="empty">{t('modules.screen.empty')}</p>}
    </div>
  );
}
