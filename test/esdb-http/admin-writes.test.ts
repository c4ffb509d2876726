/** The black-box HTTP suite's admin-writes tests, on an EventStoreDB log (the in-process stand-in, or RULEVAULT_TEST_ESDB). */
process.env.RULEVAULT_TEST_BACKEND = 'esdb';
require('../http/admin-writes.test');
