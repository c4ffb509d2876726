/** The evaluate suite with the lean path off: the express routes must answer the public endpoints identically. */
process.env.RULEVAULT_TEST_FAST_PATH = '0';
require('../http/evaluate.test');
