// cloud-multi: switch the industry shown, where the app context's switch_industry allows it.
import { localSetting } from '../lib/cache';
import { t } from '../lib/i18n';
import { industryName } from './shell-words';
import { can, loadSession, session } from '../lib/session';
import { useObservable } from '../lib/store';

export function IndustrySwitch() {
  const s = useObservable(session);
  if (!s || !can(s, 'switch_industry') || s.ctx.available_industries.length < 2) return null;
  const choose = (code: string) => {
    localSetting('industry', code);
    // preferences are kept per industry: reload them for the new one
    void loadSession();
  };
  return (
    <div class="industry-switch panel" role="group" aria-label={t('shell.industry.label')} id="industry-switch">
      <span>{t('shell.industry.prompt')}</span>
      {s.ctx.available_industries.map((code) => (
        <button type="button" key={code} class={`btn ${code === s.industry ? 'chosen' : ''}`} aria-pressed={code === s.industry} onClick={() => choose(code)}>
          {industryName(code)}
        </button>
      ))}
    </div>
  );
}
