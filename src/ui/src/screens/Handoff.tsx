// Log a phone in from the tablet: a QR code (link with a one-time secret) and a 4-digit code.
import { useState } from 'preact/hooks';
import { describeError, post } from '../lib/api';
import { t, tParts } from '../lib/i18n';

interface Challenge { challenge_id: string; code?: string; qr_payload?: string; qr_svg?: string; qr_missing?: string; expires_at: string }

export function Handoff() {
  const [ch, setCh] = useState<Challenge | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setCh(null); // never show a spent link while the new one is on its way
    setError('');
    setBusy(true);
    try {
      setCh(await post<Challenge>('/api/v1/auth/passkey/commands/start', { method: 'qr' }));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  // The SVG is drawn by our own server (qrcode library) from its own link, not from user input.
  const qr = ch?.qr_svg ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(ch.qr_svg)}` : undefined;
  const code = (
    <strong id="handoff-code" class="code">
      {ch?.code}
    </strong>
  );
  return (
    <section class="panel handoff" aria-labelledby="handoff-h">
      <h1 id="handoff-h">{t('login.handoff.title')}</h1>
      <p>{t('login.handoff.intro')}</p>
      <button type="button" id="handoff" class="btn primary" disabled={busy} onClick={() => void start()}>
        {ch ? t('login.handoff.new') : t('login.handoff.show')}
      </button>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {ch ? (
        <div id="handoff-box">
          {qr ? <img id="handoff-qr" class="qr" src={qr} alt={t('login.handoff.qr_alt')} width={224} height={224} /> : null}
          {qr ? (
            <p>{tParts('login.handoff.scan', { code })}</p>
          ) : (
            <>
              <p id="handoff-no-link" class="notice">{t('login.handoff.no_lan')}</p>
              <p>{tParts('login.handoff.no_lan_steps', { code })}</p>
            </>
          )}
          {ch.qr_payload ? (
            <p>
              <a id="handoff-link" href={ch.qr_payload}>
                {t('login.handoff.link')}
              </a>
            </p>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
