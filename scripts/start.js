#!/usr/bin/env node
/**
 * `npm start`: builds only when a source is newer than the last build
 * (scripts/build.js), then runs the service in this same process, so a start
 * on a current build costs one Node start-up, not two.
 */
'use strict';
const { ensureBuilt } = require('./build.js');

const built = ensureBuilt();
if (built !== 0) process.exit(built);
void require('../dist/src/main.js').main();
