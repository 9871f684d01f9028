// The legacy JSON module state file (config modules_state_path), read once on start-up.
// Two shapes are accepted:
//   {"installed": ["tables", "poultry"]}        the complete list: catalogue modules not named are uninstalled
//   {"modules": {"tables": {"installed": true, "version": "1.0.0"}}}   only the named modules change
// Both keys may appear together; "modules" entries then win over the list.
import { createHash } from 'node:crypto';

export interface LegacyState {
  /** Module id -> installed, for every module the file names. */
  states: Map<string, boolean>;
  /** Version recorded in the file, when given. */
  versions: Map<string, string>;
  /** True when the file holds the complete installed list (first shape). */
  complete: boolean;
  sha256: string;
}

export class LegacyStateError extends Error {}

const SEMVER = /^\d+\.\d+\.\d+$/;

export function parseLegacyState(text: string, file: string): LegacyState {
  const fail = (why: string): never => {
    throw new LegacyStateError(`legacy module state file ${file} ${why} (expected {"installed": [ids]} or {"modules": {id: {"installed": true|false}}})`);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return fail(`is not valid JSON: ${(err as Error).message}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return fail('is not a JSON object');
  const { installed, modules } = doc as { installed?: unknown; modules?: unknown };
  if (installed === undefined && modules === undefined) fail('has neither "installed" nor "modules"');
  const states = new Map<string, boolean>();
  const versions = new Map<string, string>();
  if (installed !== undefined) {
    if (!Array.isArray(installed) || !installed.every((x) => typeof x === 'string')) fail('has an "installed" that is not an array of module ids');
    for (const id of installed as string[]) states.set(id, true);
  }
  if (modules !== undefined) {
    if (modules === null || typeof modules !== 'object' || Array.isArray(modules)) fail('has a "modules" that is not an object');
    for (const [id, entry] of Object.entries(modules as Record<string, unknown>)) {
      const e = entry as { installed?: unknown; version?: unknown } | null;
      if (e === null || typeof e !== 'object' || typeof e.installed !== 'boolean') fail(`has modules.${id} without a boolean "installed"`);
      states.set(id, e!.installed as boolean);
      if (e!.version !== undefined) {
        if (typeof e!.version !== 'string' || !SEMVER.test(e!.version)) fail(`has modules.${id}.version that is not MAJOR.MINOR.PATCH`);
        versions.set(id, e!.version as string);
      }
    }
  }
  return { states, versions, complete: installed !== undefined, sha256: createHash('sha256').update(text).digest('hex') };
}
