// Channel secrets (an SMTP password, a webhook signing key) are stored encrypted with the box's
// key: AES-256-GCM under a key derived from the session key (HMAC of a fixed label, through
// sessions.digest, so the key itself never leaves the session service). Every process of a
// master shares the session key, so each can decrypt; a box whose session key is replaced can no
// longer decrypt (deliveries then fail naming that, and an admin sets the secret again).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SessionService } from '../../kernel/context.js';

const LABEL = 'cabinet notification secrets v1';
const keyOf = (sessions: SessionService) => Buffer.from(sessions.digest(LABEL), 'hex');

/** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export function sealSecret(sessions: SessionService, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(sessions), iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}

export class SecretUnreadable extends Error {
  /** format: not a sealed secret of a version this box knows; key: this box's key does not open it. */
  constructor(message: string, readonly why: 'format' | 'key') {
    super(message);
  }
}

export function openSecret(sessions: SessionService, sealed: string): string {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || data === undefined) throw new SecretUnreadable('the stored secret has an unknown format; set it again', 'format');
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(sessions), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnreadable('the stored secret cannot be decrypted with this box\'s key (was the session key replaced?); set it again', 'key');
  }
}
