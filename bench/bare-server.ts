/**
 * The bare node:http baseline: reads the body and answers a fixed JSON, with
 * nothing else. Run as its own process; prints its port once listening.
 *
 *   node dist/bench/bare-server.js '<answer json>'
 */
import http from 'node:http';

const answer = process.argv[2] ?? '{}';
const server = http.createServer((req, res) => {
  req.on('data', () => undefined);
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(answer) });
    res.end(answer);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
