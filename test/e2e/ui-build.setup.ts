// Vitest global setup: the web shell is built from src/ui (Preact + Vite) into dist/web before any
// test starts a server, so `npm test` on a clean clone serves the current shell. Skipped (a stat of
// the sources) when dist/web is newer than every file under src/ui.
export default async function setup(): Promise<void> {
  // @ts-expect-error a plain ESM script without type declarations
  const { ensureUiBuilt } = (await import('../../src/ui/build-ui.mjs')) as { ensureUiBuilt(o?: { quiet?: boolean }): Promise<{ built: boolean }> };
  await ensureUiBuilt({ quiet: true });
}
