// The first thing `cabinet` does: refuse a Node.js older than package.json's engines, in one line,
// before any native addon is loaded (better-sqlite3 built for Node 24 crashes an older Node with
// a segmentation fault instead of an error). Imported first by src/main.ts for that reason.
import pkg from '../package.json' with { type: 'json' };

/** The line to print when `version` (process.version) is below `engines` (">=24", ">=24.2"), else undefined. */
export function nodeVersionProblem(version: string, engines: string): string | undefined {
  const need = /^>=\s*(\d+)(?:\.(\d+))?/.exec(engines);
  const have = /^v?(\d+)\.(\d+)/.exec(version);
  if (!need || !have) return undefined;
  const [needMajor, needMinor] = [Number(need[1]), Number(need[2] ?? 0)];
  const [haveMajor, haveMinor] = [Number(have[1]), Number(have[2])];
  if (haveMajor > needMajor || (haveMajor === needMajor && haveMinor >= needMinor)) return undefined;
  const wanted = `${needMajor}${need[2] ? `.${needMinor}` : ''}`;
  return `cabinet: Node.js ${version} is too old: cabinet needs Node.js ${wanted} or later (package.json engines "${engines}"). ` +
    `From a clone, run it through npm (npm ci installs Node.js ${wanted} for npm start, npm test and npx tsx), or install Node.js ${wanted} from https://nodejs.org/ or your distribution; the cabinet executable carries its own.`;
}

const problem = nodeVersionProblem(process.version, pkg.engines.node);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
