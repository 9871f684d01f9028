// Log a phone in from the tablet: a QR code (link with a one-time secret) and a 4-digit code.
import { useState } from 'preact/hooks';
import { describeError, post } from '../lib/api';

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
  return (
    <section class="panel handoff" aria-labelledby="handoff-h">
      <h1 id="handoff-h">Log in a phone</h1>
      <p>The phone gets a session like yours. The code and the link work once and for two minutes.</p>
      <button type="button" id="handoff" class="btn primary" disabled={busy} onClick={() => void start()}>
        {ch ? 'New code' : 'Show code'}
      </button>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {ch ? (
        <div id="handoff-box">
          {qr ? <img id="handoff-qr" class="qr" src={qr} alt="QR code to scan with the phone" width={224} height={224} /> : null}
          {qr ? (
            <p>
              Scan it with the phone, or enter the code <strong id="handoff-code" class="code">{ch.code}</strong> on the phone's login page.
            </p>
          ) : (
            <>
              <p id="handoff-no-link" class="notice">This box is not on a network a phone can reach, so there is no QR code.</p>
              <p>
                Connect the box to the farm network and press New code, or open the box's login page on the phone another way and enter the code{' '}
                <strong id="handoff-code" class="code">{ch.code}</strong>.
              </p>
            </>
          )}
          {ch.qr_payload ? (
            <p>
              <a id="handoff-link" href={ch.qr_payload}>
                Hand-off link
              </a>
            </p>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
