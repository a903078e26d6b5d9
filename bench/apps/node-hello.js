// The "node" scenario's application: node's own http module, one process, answering every request
// with 200 "hello, world!\n" (the classic hello app of shared/reference/). Usage: node node-hello.js PORT
'use strict';
const http = require('http');
const port = Number(process.argv[2] || 3000);
const body = Buffer.from('hello, world!\n');
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length });
  res.end(body);
});
// Proxies keep upstream connections open for a minute; node's 5 s default would close them under the
// proxies' feet (a race that shows up as 502s), so keep them longer than any proxy does.
server.keepAliveTimeout = 75000;
server.headersTimeout = 76000;
server.listen(port, '127.0.0.1');
