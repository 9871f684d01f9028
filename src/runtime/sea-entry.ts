// Entry point of the single executable (bundled by build.mjs, never run from source).
// 1. Wire assets and native addons to the executable's embedded copies (src/runtime/sea.ts).
// 2. `cabinet __selfcheck ...` runs the shipping self-checks (src/runtime/selfcheck.ts);
//    anything else runs the application (src/main.ts, resolved through the `cabinet:app` alias).
import { installSeaRuntime } from './sea.js';

installSeaRuntime();

const fail = (err: unknown): void => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
};

if (process.argv[2] === '__selfcheck') {
  import('./selfcheck.js')
    .then((m) => m.selfcheck(process.argv.slice(3)))
    .then((code) => {
      process.exitCode = code;
    }, fail);
} else {
  import('cabinet:app').catch(fail);
}
