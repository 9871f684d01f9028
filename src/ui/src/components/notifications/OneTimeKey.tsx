// A signing key made on this tablet for a webhook, shown once after the channel is saved: the box
// keeps it encrypted and never shows it again, so the installer copies it into the receiver now
// (as OneTimeCredential does for a card's code).
import { useEffect, useRef, useState } from 'preact/hooks';

export function OneTimeKey({ channel, secret, onDismiss }: { channel: string; secret: string; onDismiss: () => void }) {
  const ref = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState('');
  useEffect(() => ref.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied.');
    } catch {
      setCopied('This browser does not allow copying here: write the key down.');
    }
  };
  return (
    <section class="credential-once panel" id="key-once" ref={ref} tabIndex={-1} aria-labelledby="key-once-h">
      <h3 id="key-once-h">Signing key for {channel}</h3>
      <p class="credential-warning">Shown only now: put it into the receiver (it checks every message with it) before you close this. The box cannot show it again.</p>
      <p class="credential-code">
        <span class="label">Key</span>
        <code id="key-once-code">{secret}</code>
      </p>
      <p class="status-line" role="status">{copied}</p>
      <div class="actions">
        <button type="button" class="btn" id="key-once-copy" onClick={() => void copy()}>Copy</button>
        <button type="button" class="btn primary" id="key-once-dismiss" onClick={onDismiss}>Done, hide the key</button>
      </div>
    </section>
  );
}

/** 32 random bytes from the browser's CSPRNG, base64url: 43 characters. */
export function newSigningKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
