// Passkey identifiers and credentials. Identifiers are public; credentials log someone in.
import { PASSKEY_ID_PREFIX } from '../../auth/scope.js';
import { randomBytes } from 'node:crypto';

const BASE32 = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const random = (n: number) => [...randomBytes(n)].map((b) => BASE32[b % 32]).join('');

export const newPasskeyId = () => `${PASSKEY_ID_PREFIX}${random(10)}`;

/** RFID: the card's UID as the reader types it (hex or digits), or a random one to write to a blank tag. */
export const rfidCredential = (cardUid?: string) => `RF-${cardUid ? cardUid.toUpperCase() : random(16)}`;
export const qrCredential = () => `QR-${randomBytes(24).toString('base64url')}`;

