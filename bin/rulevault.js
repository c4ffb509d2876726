#!/usr/bin/env node
/**
 * The `rulevault` command (package.json "bin"). Builds first only when a
 * source is newer than the last build (scripts/build.js), then runs the
 * compiled CLI (src/cli/rulevault.ts) in this same process.
 */
'use strict';
const { ensureBuilt } = require('../scripts/build.js');

const built = ensureBuilt();
if (built !== 0) process.exit(built);
require('../dist/src/cli/rulevault.js').main(process.argv.slice(2));
