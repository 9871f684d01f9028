// A profile file chosen on the tablet or laptop (JSON or YAML) read in the browser: it only fills
// the form; nothing is sent until the person saves. YAML's parser is loaded only when a YAML file
// is chosen, so the shell does not carry it on every start.
import { t } from '../lib/i18n';

interface Props {
  onLoad: (profile: unknown, name: string) => void;
  onError: (text: string) => void;
  disabled?: boolean;
}

const MAX_BYTES = 512 * 1024;

export async function parseProfileFile(name: string, text: string): Promise<unknown> {
  if (/\.ya?ml$/i.test(name)) {
    const { parse } = await import('yaml');
    return parse(text) as unknown;
  }
  return JSON.parse(text) as unknown;
}

export function ProfileFile({ onLoad, onError, disabled }: Props) {
  const pick = async (e: Event) => {
    const input = e.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    if (file.size > MAX_BYTES) return onError(t('forms.profileFile.tooLarge', { file: file.name }));
    try {
      const profile = await parseProfileFile(file.name, await file.text());
      if (!profile || typeof profile !== 'object' || Array.isArray(profile)) return onError(t('forms.profileFile.notProfile', { file: file.name }));
      onLoad(profile, file.name);
    } catch (err) {
      // the parser's own first line (where in the file), as it wrote it
      onError(t('forms.profileFile.unreadable', { file: file.name, cause: (err as Error).message.split('\n')[0] ?? '' }));
    }
  };
  return (
    <div class="form-row profile-file">
      <label for="profile-file">{t('forms.profileFile.label')}</label>
      <input id="profile-file" type="file" accept=".json,.yaml,.yml,application/json,application/yaml,text/yaml" disabled={disabled} onChange={(e) => void pick(e)} />
    </div>
  );
}
