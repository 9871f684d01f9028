// `cabinet passkey issue --language`: the card is issued with its holder's language when the box
// offers it (shipped, or a catalogue the site added), and refused, with nothing stored, otherwise.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { passkeyCommand } from '../../src/cli-auth.js';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/db/client.js';

const dir = mkdtempSync(join(tmpdir(), 'cabinet-cli-language-'));
const base = ['issue', '--data-dir', dir, '--mode', 'cloud-multi', '--type', 'qr', '--role', 'admin', '--scope-type', 'master'];
const rows = async () => {
  const db = await openDatabase({ databaseUrl: '', dataDir: dir });
  try {
    return await db.rows<{ holder: string; language: string | null }>(sql`select holder, language from passkeys order by holder`);
  } finally {
    await db.close();
  }
};

describe('cabinet passkey issue --language', () => {
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  afterAll(() => {
    out.mockRestore();
    err.mockRestore();
  });

  it('stores the language of a card, none when not given, and refuses one the box does not offer', async () => {
    expect(await passkeyCommand([...base, '--holder', 'Ana', '--language', 'es'])).toBe(0);
    expect(String(out.mock.calls.at(-2)?.[0] ?? out.mock.calls.at(-1)?.[0])).toMatch(/language es/);
    expect(await passkeyCommand([...base, '--holder', 'Bo'])).toBe(0);
    await expect(passkeyCommand([...base, '--holder', 'Cy', '--language', 'de'])).rejects.toThrow(/--language must be one of en, ru, es/);
    mkdirSync(join(dir, 'i18n'), { recursive: true });
    writeFileSync(join(dir, 'i18n', 'de.json'), JSON.stringify({ 'common.yes': 'Ja' }));
    expect(await passkeyCommand([...base, '--holder', 'Di', '--language', 'de'])).toBe(0);
    expect(await rows()).toEqual([{ holder: 'Ana', language: 'es' }, { holder: 'Bo', language: null }, { holder: 'Di', language: 'de' }]);
  });
});
