// Login at the panel: an RFID reader types the card and Enter into the focused field; a phone logs
// in with the 4-digit code shown on the tablet (or opens the QR link, handled at start-up). On a
// first run (no admin card yet) the backend's setup hint is shown. "Trust this box" offers the box's
// own certificate authority (QR to its download, fingerprint to compare) so tablets reach it over HTTPS.
// Before anyone logs in, the tablet's language is chosen here: each language by its own name, big
// enough for a gloved hand, kept on the tablet (lib/i18n.ts chooseLanguage) across reloads and offline.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describeError, get, post } from '../lib/api';
import { endedReason, loadSession } from '../lib/session';
import { useObservable } from '../lib/store';
import { chooseLanguage, language, loadOffered, offered, t, tParts, type MessageKey } from '../lib/i18n';
import { AUTONYMS, SHIPPED_LANGUAGES } from '../../../i18n/languages';

interface PasskeyStatus { authenticated: boolean; setup_required?: boolean; setup_hint?: string }
interface CaInfo { fingerprint_sha256: string; download_url: string; https_url: string; qr_svg: string }

/** "AB:CD:...": 32 bytes in 8 groups of 4, so the line breaks where a person compares. */
const groupFingerprint = (fp: string) => (fp.match(/([0-9A-F]{2}:?){1,4}/gi) ?? []).map((g) => g.replace(/:$/, '')).join(' ');

function TrustBox() {
  const [ca, setCa] = useState<CaInfo | null>(null);
  useEffect(() => {
    // Not through the API client: public, never cached per user; absent (404) when HTTPS is off.
    fetch('/ca.json')
      .then((r) => (r.ok ? (r.json() as Promise<CaInfo>) : null))
      .then(setCa)
      .catch(() => undefined);
  }, []);
  if (!ca) return null;
  // The SVG is drawn by our own server (qrcode library) from its own link, not from user input.
  const qr = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(ca.qr_svg)}`;
  return (
    <section id="trust-box" class="panel" aria-labelledby="trust-h">
      <h2 id="trust-h">{t('login.trust.title')}</h2>
      <img id="trust-qr" class="qr" src={qr} alt={t('login.trust.qr_alt')} width={176} height={176} />
      <p>
        {tParts('login.trust.steps', {
          download: <a href={ca.download_url}>{ca.download_url}</a>,
          https: (
            <a id="trust-https" href={ca.https_url}>
              {ca.https_url}
            </a>
          ),
        })}
      </p>
      <p>
        {t('login.trust.fingerprint')} <code id="ca-fingerprint">{groupFingerprint(ca.fingerprint_sha256)}</code>
      </p>
    </section>
  );
}

const LOGIN_ERRORS: Record<string, MessageKey> = {
  login_refused: 'login.error.refused',
  login_method_forbidden: 'login.error.card_at_panel',
  rate_limited: 'login.error.rate_limited',
};

function loginError(err: unknown): string {
  const key = err instanceof ApiError ? LOGIN_ERRORS[err.code] : undefined;
  return key ? t(key) : describeError(err);
}

/**
 * The tablet's language, chosen before anyone logs in: one big button per language the box
 * offers, each in its own name and marked with its own lang (so a screen reader says it right).
 */
function LanguageChoice() {
  const list = useObservable(offered);
  const lang = useObservable(language);
  const [busy, setBusy] = useState('');
  useEffect(() => {
    void loadOffered();
  }, []);
  const languages = list?.languages.length ? list.languages : SHIPPED_LANGUAGES.map((code) => ({ code, name: AUTONYMS[code] ?? code }));
  if (languages.length < 2) return null;
  const choose = (code: string) => {
    setBusy(code);
    void chooseLanguage(code).finally(() => setBusy(''));
  };
  return (
    <section id="language-choice" class="language-choice" aria-labelledby="language-h">
      <h2 id="language-h">{t('login.language.title')}</h2>
      <div class="language-buttons" role="group" aria-labelledby="language-h">
        {languages.map((l) => (
          <button
            key={l.code}
            type="button"
            class={`btn language-btn ${l.code === lang ? 'primary' : ''}`}
            data-lang={l.code}
            lang={l.code}
            aria-pressed={l.code === lang}
            disabled={busy !== ''}
            onClick={() => choose(l.code)}
          >
            {l.name}
          </button>
        ))}
      </div>
      <p class="muted language-hint">{t('login.language.hint')}</p>
    </section>
  );
}

export function Login() {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<PasskeyStatus | null>(null);
  const ended = useObservable(endedReason);
  const cardRef = useRef<HTMLInputElement>(null);

  // The reader types into the focused field: keep the focus there after every attempt.
  useEffect(() => {
    if (!busy) cardRef.current?.focus();
  }, [busy]);

  useEffect(() => {
    get<{ item: PasskeyStatus }>('/api/v1/auth/passkey/status')
      .then((r) => setStatus(r.item))
      .catch(() => undefined);
    cardRef.current?.focus();
  }, []);

  const attempt = async (fn: () => Promise<unknown>) => {
    setError('');
    setBusy(true);
    try {
      await fn();
      await loadSession();
    } catch (err) {
      setError(loginError(err));
    } finally {
      setBusy(false);
    }
  };

  const onCard = (e: Event) => {
    e.preventDefault();
    const input = cardRef.current!;
    const raw = input.value.trim();
    input.value = '';
    if (!raw) return;
    const credential = raw.toUpperCase().startsWith('RF-') ? `RF-${raw.slice(3)}` : `RF-${raw}`;
    void attempt(async () => {
      const ch = await post<{ challenge_id: string }>('/api/v1/auth/passkey/commands/start', { method: 'rfid' });
      await post('/api/v1/auth/passkey/commands/complete', { challenge_id: ch.challenge_id, credential });
    });
  };

  const onCode = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const input = form.elements.namedItem('code') as HTMLInputElement;
    const code = input.value.trim();
    input.value = '';
    if (!/^\d{4}$/.test(code)) {
      setError(t('login.code.four_digits'));
      return;
    }
    void attempt(() => post('/api/v1/auth/passkey/commands/complete', { code }));
  };

  return (
    <main class="login" id="login">
      <h1>{t('login.title')}</h1>
      {ended ? (
        <p class="notice" role="status">
          {t(ended)}
        </p>
      ) : null}
      {status?.setup_required || status?.setup_hint ? (
        <div class="notice setup-hint" id="setup-hint" role="note">
          <strong>{t('login.first_start')}</strong> {status.setup_hint ?? t('login.first_start.no_admin')}
        </div>
      ) : null}
      <LanguageChoice />
      <div class="login-panels">
        <form id="card-form" class="panel" onSubmit={onCard}>
          <h2>{t('login.card.title')}</h2>
          <label for="card">{t('login.card.label')}</label>
          {/* i18n-ok: the shape of a card's code, not a word */}
          <input id="card" ref={cardRef} name="card" autoComplete="off" inputMode="none" placeholder="RF-..." readOnly={busy} />
          <button type="submit" class="btn primary" disabled={busy}>
            {t('login.card.submit')}
          </button>
        </form>
        <form id="code-form" class="panel" onSubmit={onCode}>
          <h2>{t('login.code.title')}</h2>
          <label for="code">{t('login.code.label')}</label>
          <input id="code" name="code" inputMode="numeric" pattern="\d{4}" maxLength={4} placeholder="0000" autoComplete="one-time-code" disabled={busy} />
          <button type="submit" class="btn primary" disabled={busy}>
            {t('login.code.submit')}
          </button>
        </form>
        <TrustBox />
      </div>
      <p id="login-error" class="error" role="alert">
        {error}
      </p>
    </main>
  );
}
