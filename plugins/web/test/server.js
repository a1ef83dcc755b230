import http from 'node:http';

/**
 * A loopback HTTP server for the tests. `routes` maps a path to a handler
 * `(req, res, url) => void`; anything else is a 404.
 */
export async function startServer(routes) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const route = routes[url.pathname];
    if (route) route(req, res, url);
    else {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><head><title>Not here</title></head><body><h1>404</h1><p>No such page.</p></body></html>');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

/** Writes `chunk` over and over (respecting backpressure) until the client hangs up or `limit` bytes went out. */
export function streamForever(res, chunk, limit) {
  const stats = { sent: 0 };
  stats.closed = new Promise((resolve) => res.on('close', () => resolve(stats.sent)));
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  const pump = () => {
    while (!closed && stats.sent < limit) {
      stats.sent += Buffer.byteLength(chunk);
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!closed) res.end();
  };
  pump();
  return stats;
}
