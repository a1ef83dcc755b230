import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deadline, requestError } from '../lib/http.js';
import { DEFAULT_MAX_CHARS, MAX_BODY_BYTES } from '../lib/web-fetch.js';
import { makeCtx, tempDir, tool } from './helpers.js';
import { startServer, streamForever } from './server.js';

const fetchTool = tool('web_fetch');
const webFetch = fetchTool.handler;
let server;
let tmp;
let ctx;
let streams;
let hung;

const PAGE = `<!doctype html>
<html><head><title>Toolshed &amp; Friends</title><style>body { color: red }</style>
<script>window.secret = "do not show";</script></head>
<body><nav><a href="/">Home</a></nav>
<h1>Welcome</h1>
<p>Read the <a href="/docs/intro">introduction</a> first.</p>
<img src="logo.png" alt="logo">
<ul><li>fast</li><li>safe</li></ul>
<table><tr><th>Tool</th><th>Set</th></tr><tr><td>read_file</td><td>file</td></tr></table>
</body></html>`;

beforeAll(async () => {
  server = await startServer({
    '/page.html': (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    },
    '/data.json': (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"items":[1,2,3],"ok":true}');
    },
    '/plain': (req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('just text\n');
    },
    '/headers': (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ua: req.headers['user-agent'], accept: req.headers.accept }));
    },
    '/latin1': (req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
      res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    },
    '/meta-charset': (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        Buffer.concat([
          Buffer.from('<html><head><meta charset="windows-1252"></head><body><p>na'),
          Buffer.from([0xef, 0x76, 0x65]),
          Buffer.from('</p></body></html>'),
        ]),
      );
    },
    '/untyped': (req, res) => {
      res.writeHead(200);
      res.end('<!DOCTYPE html><html><body><p>sniffed</p></body></html>');
    },
    '/untyped-binary': (req, res) => {
      res.writeHead(200);
      res.end(Buffer.from([1, 2, 0, 3, 4]));
    },
    '/image.png': (req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    },
    '/redirect': (req, res) => {
      res.writeHead(302, { location: '/page.html' });
      res.end();
    },
    '/endless.txt': (req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      streams.push(streamForever(res, `${'y'.repeat(65535)}\n`, 200 * 1024 * 1024));
    },
    '/endless.html': (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body>');
      streams.push(streamForever(res, `<p>${'z'.repeat(65529)}</p>`, 200 * 1024 * 1024));
    },
    '/hang': () => {
      hung.resolve();
    },
  });
});
afterAll(() => server.close());

beforeEach(async () => {
  tmp = await tempDir();
  ctx = makeCtx(tmp.dir);
  streams = [];
  let resolve;
  hung = { promise: new Promise((r) => (resolve = r)) };
  hung.resolve = resolve;
  return () => tmp.remove();
});

describe('web_fetch', () => {
  it('turns HTML into readable text and reports status, type and title', async () => {
    const result = await webFetch({ url: `${server.base}/page.html` }, ctx);
    expect(result).toMatchObject({
      url: `${server.base}/page.html`,
      status: 200,
      statusText: 'OK',
      contentType: 'text/html; charset=utf-8',
      title: 'Toolshed & Friends',
      truncated: false,
    });
    expect(result.finalUrl).toBeUndefined();
    expect(result.content).toContain('Welcome');
    expect(result.content).toContain(`Read the introduction [${server.base}/docs/intro] first.`);
    expect(result.content).toMatch(/\* fast\n \* safe/);
    expect(result.content).toMatch(/Tool\s+Set\nread_file\s+file/);
    expect(result.content).not.toContain('do not show');
    expect(result.content).not.toContain('color: red');
    expect(result.content).not.toContain('<');
  });

  it('passes JSON and plain text through unchanged', async () => {
    expect((await webFetch({ url: `${server.base}/data.json` }, ctx)).content).toBe('{"items":[1,2,3],"ok":true}');
    const plain = await webFetch({ url: `${server.base}/plain` }, ctx);
    expect(plain).toMatchObject({ content: 'just text\n', contentType: 'text/plain', truncated: false });
  });

  it('sends a User-Agent and an Accept header', async () => {
    const sent = JSON.parse((await webFetch({ url: `${server.base}/headers` }, ctx)).content);
    expect(sent.ua).toMatch(/toolshed-web/);
    expect(sent.accept).toMatch(/text\/html/);
  });

  it('decodes the declared charset, from the header or a <meta> tag', async () => {
    expect((await webFetch({ url: `${server.base}/latin1` }, ctx)).content).toBe('café');
    expect((await webFetch({ url: `${server.base}/meta-charset` }, ctx)).content).toBe('naïve');
  });

  it('sniffs untyped responses: HTML is converted, binary refused', async () => {
    expect((await webFetch({ url: `${server.base}/untyped` }, ctx)).content).toBe('sniffed');
    await expect(webFetch({ url: `${server.base}/untyped-binary` }, ctx)).rejects.toThrow(
      /binary data.*only returns text/,
    );
  });

  it('refuses binary content types', async () => {
    await expect(webFetch({ url: `${server.base}/image.png` }, ctx)).rejects.toThrow(
      /returned image\/png \(HTTP 200\), which is not text/,
    );
  });

  it('follows redirects and reports the final URL', async () => {
    const result = await webFetch({ url: `${server.base}/redirect` }, ctx);
    expect(result.finalUrl).toBe(`${server.base}/page.html`);
    expect(result.title).toBe('Toolshed & Friends');
  });

  it('reports an error status with its body instead of failing', async () => {
    const result = await webFetch({ url: `${server.base}/nothing-here` }, ctx);
    expect(result).toMatchObject({ status: 404, statusText: 'Not Found', title: 'Not here' });
    expect(result.content).toContain('No such page.');
  });

  it('caps text while streaming and hangs up on an endless body', async () => {
    const result = await webFetch({ url: `${server.base}/endless.txt`, maxChars: 1000 }, ctx);
    expect(result.truncated).toBe(true);
    expect(result.content).toBe('y'.repeat(1000));
    expect(result.note).toMatch(/cut at 1000 characters.*larger maxChars/);
    const sent = await streams[0].closed;
    expect(sent).toBeLessThan(50 * 1024 * 1024);
  });

  it('caps HTML by raw bytes too, then by characters', async () => {
    const result = await webFetch({ url: `${server.base}/endless.html` }, ctx);
    expect(result.truncated).toBe(true);
    expect(result.content.length).toBe(DEFAULT_MAX_CHARS);
    const sent = await streams[0].closed;
    expect(sent).toBeGreaterThanOrEqual(MAX_BODY_BYTES / 2);
    expect(sent).toBeLessThan(50 * 1024 * 1024);
  });

  it('refuses non-http schemes and invalid URLs', async () => {
    await expect(webFetch({ url: 'file:///etc/passwd' }, ctx)).rejects.toThrow(
      'Only http:// and https:// URLs can be fetched; file: URLs are refused.',
    );
    await expect(webFetch({ url: 'ftp://example.com/x' }, ctx)).rejects.toThrow(/ftp: URLs are refused/);
    await expect(webFetch({ url: 'not a url' }, ctx)).rejects.toThrow(/"not a url" is not a valid URL/);
  });

  it('fails clearly when the host cancels the call', async () => {
    const call = webFetch({ url: `${server.base}/hang` }, ctx);
    await hung.promise;
    ctx.controller.abort();
    await expect(call).rejects.toThrow(`The request to ${server.base}/hang was cancelled.`);
  });

  it('tells a timeout apart from a cancellation', async () => {
    const limit = deadline(ctx.signal, 50);
    const err = await fetch(`${server.base}/hang`, { signal: limit.signal }).then(
      () => null,
      (e) => requestError(e, 'the test server', limit, 50),
    );
    expect(err?.message).toBe('the test server did not answer within 0.05 s.');
  });

  it('explains a refused connection', async () => {
    const closed = http.createServer();
    await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address();
    await new Promise((resolve) => closed.close(resolve));
    await expect(webFetch({ url: `http://127.0.0.1:${port}/` }, ctx)).rejects.toThrow(
      /Could not reach .* the connection was refused/,
    );
  });

  it('mentions web_search only as a conditional part of its description', () => {
    expect(fetchTool.codeCallable).toBe(true);
    const [base, ...parts] = fetchTool.description;
    expect(base).not.toContain('web_search');
    expect(parts).toContainEqual({ ifAvailable: ['web_search'], text: expect.stringContaining('web_search') });
  });
});
