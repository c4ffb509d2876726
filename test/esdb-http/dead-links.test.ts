/** The black-box HTTP suite's dead-links tests, on an EventStoreDB log (the in-process stand-in, or RULEVAULT_TEST_ESDB). */
process.env.RULEVAULT_TEST_BACKEND = 'esdb';
require('../http/dead-links.test');
