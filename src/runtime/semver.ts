// The five semver functions cabinet uses, each from its own file of the package: `import semver
// from 'semver'` evaluates all of it (ranges, comparators, every function; about 2 % of a start's
// CPU in a profile of the executable) at every start.
import valid from 'semver/functions/valid.js';
import major from 'semver/functions/major.js';
import lt from 'semver/functions/lt.js';
import gt from 'semver/functions/gt.js';
import eq from 'semver/functions/eq.js';

const semver = { valid, major, lt, gt, eq };
export default semver;
