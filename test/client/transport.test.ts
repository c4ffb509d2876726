/** The client's URL joining: the base URL's path prefix kept, the query split at its first `?` only. */
import t from 'tap';
import { joinUrl } from '../../src/client/transport';

t.test('joinUrl keeps the base path and the whole query', async (t) => {
  t.equal(joinUrl('http://h:1/rv', '/api/x'), 'http://h:1/rv/api/x');
  t.equal(joinUrl('http://h:1/rv//', '/api/x?limit=5'), 'http://h:1/rv/api/x?limit=5');
  t.equal(joinUrl('https://h', '/api/x?q=a?b&c=d'), 'https://h/api/x?q=a?b&c=d', 'a later ? stays in the query');
  t.equal(joinUrl('ftp://h', '/api/x'), undefined);
  t.equal(joinUrl('not a url', '/api/x'), undefined);
});
