// The card's or badge's code as the box answered it when issued: shown once, large, with its QR
// and a Print button (the print stylesheet prints this panel alone). The box keeps only a keyed
// hash, so once dismissed nothing can show it again.
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../lib/i18n';

export interface IssuedCredential { credential: string; qr_svg?: string; holder?: string; type?: string }

export const isIssuedCredential = (v: unknown): v is IssuedCredential =>
  !!v && typeof v === 'object' && typeof (v as { credential?: unknown }).credential === 'string';

export function OneTimeCredential({ issued, onDismiss }: { issued: IssuedCredential; onDismiss: () => void }) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const kind = issued.type === 'qr' ? 'qr' : 'card';
  // The SVG is drawn by our own server (qrcode library) from the credential it generated, not from user input.
  const qr = issued.qr_svg ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(issued.qr_svg)}` : null;
  return (
    <section class="credential-once panel" id="credential-once" ref={ref} tabIndex={-1} aria-labelledby="credential-once-h">
      <h3 id="credential-once-h">
        {issued.holder ? t('forms.credential.title', { kind, holder: issued.holder }) : t('forms.credential.titleNoHolder', { kind })}
      </h3>
      <p class="credential-warning no-print">{t('forms.credential.warning')}</p>
      <div class="credential-body">
        {qr ? <img class="qr" id="credential-qr" src={qr} alt={t('forms.credential.qrAlt', { kind })} width={200} height={200} /> : null}
        <p class="credential-code">
          <span class="label">{t('forms.credential.code')}</span>
          <code id="credential-code">{issued.credential}</code>
        </p>
      </div>
      <div class="actions no-print">
        <button type="button" class="btn primary" id="credential-print" onClick={() => window.print()}>
          {t('forms.credential.print')}
        </button>
        <button type="button" class="btn" id="credential-dismiss" onClick={onDismiss}>
          {t('forms.credential.dismiss')}
        </button>
      </div>
    </section>
  );
}
