// Vitest global setup: every temporary directory of the run (test data directories, pty pairs,
// Chromium's profiles, the peers' files) goes under one directory of its own, removed when the run
// ends. Tests clean up after themselves, but a server killed on purpose, a failed test or a
// child's own temp files would otherwise leave dozens in the system's temp folder. Set before the
// workers start, so they and their children inherit it (os.tmpdir() and most programs read TMPDIR).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleDir } from './cabinet-main.js';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'cabinet-run-'));
  process.env.TMPDIR = root;
  // The run's own files that workers share (test/helpers/contract.ts), named apart from TMPDIR,
  // which children and libraries use for anything.
  process.env.CABINET_TEST_RUN_DIR = root;
  return () => {
    rmSync(root, { recursive: true, force: true });
    rmSync(bundleDir(root), { recursive: true, force: true });
  };
}
