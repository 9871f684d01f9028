// A signing key made on this tablet for a webhook, shown once after the channel is saved: the box
// keeps it encrypted and never shows it again, so the installer copies it into the receiver now
// (as OneTimeCredential does for a card's code).
import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../../lib/i18n';

export function OneTimeKey({ channel, secret, onDismiss }: { channel: string; secret: string; onDismiss: () => void }) {
  const ref = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState('');
  useEffect(() => ref.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(t('notifications.key.copied'));
    } catch {
      setCopied(t('notifications.key.no_copy'));
    }
  };
  return (
    <section class="credential-once panel" id="key-once" ref={ref} tabIndex={-1} aria-labelledby="key-once-h">
      <h3 id="key-once-h">{t('notifications.key.title', { channel })}</h3>
      <p class="credential-warning">{t('notifications.key.warning')}</p>
      <p class="credential-code">
        <span class="label">{t('notifications.form.key')}</span>
        <code id="key-once-code">{secret}</code>
      </p>
      <p class="status-line" role="status">{copied}</p>
      <div class="actions">
        <button type="button" class="btn" id="key-once-copy" onClick={() => void copy()}>{t('notifications.key.copy')}</button>
        <button type="button" class="btn primary" id="key-once-dismiss" onClick={onDismiss}>{t('notifications.key.done')}</button>
      </div>
    </section>
  );
}

/** 32 random bytes from the browser's CSPRNG, base64url: 43 characters. */
export function newSigningKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
