// Login at the panel: an RFID reader types the card and Enter into the focused field; a phone logs
// in with the 4-digit code shown on the tablet (or opens the QR link, handled at start-up). On a
// first run (no admin card yet) the backend's setup hint is shown. "Trust this box" offers the box's
// own certificate authority (QR to its download, fingerprint to compare) so tablets reach it over HTTPS.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describeError, get, post } from '../lib/api';
import { endedReason, loadSession } from '../lib/session';
import { useObservable } from '../lib/store';

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
      <h2 id="trust-h">Trust this box</h2>
      <img id="trust-qr" class="qr" src={qr} alt="QR code: link to this box's certificate" width={176} height={176} />
      <p>
        On a tablet: scan the code or open <a href={ca.download_url}>{ca.download_url}</a>, install the certificate, then
        use <a id="trust-https" href={ca.https_url}>{ca.https_url}</a>.
      </p>
      <p>
        The tablet must show this fingerprint (SHA-256): <code id="ca-fingerprint">{groupFingerprint(ca.fingerprint_sha256)}</code>
      </p>
    </section>
  );
}

function loginError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === 'login_refused') return 'Login refused: unknown, expired or revoked card or code.';
    if (err.code === 'login_method_forbidden') return 'Card login works only at the panel. Use the code from the tablet.';
    if (err.code === 'rate_limited') return 'Too many attempts: wait a few minutes.';
  }
  return describeError(err);
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
      setError('The code has 4 digits.');
      return;
    }
    void attempt(() => post('/api/v1/auth/passkey/commands/complete', { code }));
  };

  return (
    <main class="login" id="login">
      <h1>cabinet</h1>
      {ended ? (
        <p class="notice" role="status">
          {ended}
        </p>
      ) : null}
      {status?.setup_required || status?.setup_hint ? (
        <div class="notice setup-hint" id="setup-hint" role="note">
          <strong>First start:</strong> {status.setup_hint ?? 'No admin card has been issued yet.'}
        </div>
      ) : null}
      <div class="login-panels">
        <form id="card-form" class="panel" onSubmit={onCard}>
          <h2>At the panel</h2>
          <label for="card">Hold your card to the reader</label>
          <input id="card" ref={cardRef} name="card" autoComplete="off" inputMode="none" placeholder="RF-..." readOnly={busy} />
          <button type="submit" class="btn primary" disabled={busy}>
            Log in with card
          </button>
        </form>
        <form id="code-form" class="panel" onSubmit={onCode}>
          <h2>On a phone</h2>
          <label for="code">Code shown on the tablet</label>
          <input id="code" name="code" inputMode="numeric" pattern="\d{4}" maxLength={4} placeholder="0000" autoComplete="one-time-code" disabled={busy} />
          <button type="submit" class="btn primary" disabled={busy}>
            Log in with code
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
