// @ts-check
import { convert } from 'html-to-text';

/** Elements that carry no readable text for a model. */
const SKIPPED = ['img', 'svg', 'noscript', 'iframe', 'template', 'canvas', 'video', 'audio', 'picture', 'button'];

/** `href` resolved against the page URL, as a browser would; left alone when it cannot be. */
function absolute(/** @type {string} */ href, /** @type {string} */ baseUrl) {
  try {
    return new URL(href, baseUrl).href;
  } catch {
    return href;
  }
}

/** html-to-text settings: no hard wrapping, links kept (absolute), headings not shouted, tables laid out. */
function options(/** @type {string} */ baseUrl) {
  return {
    wordwrap: /** @type {false} */ (false),
    selectors: [
      // html-to-text's own baseUrl only prefixes strings ("/page.html" + "/x"), so links are resolved here.
      {
        selector: 'a',
        options: {
          hideLinkHrefIfSameAsText: true,
          pathRewrite: (/** @type {string} */ href) => absolute(href, baseUrl),
        },
      },
      ...SKIPPED.map((selector) => ({ selector, format: 'skip' })),
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
      { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    ],
  };
}

/** Turns an HTML page into readable plain text, with links resolved against `baseUrl`. */
export function htmlToText(/** @type {string} */ html, /** @type {string} */ baseUrl) {
  return convert(html, options(baseUrl))
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The page's <title>, entity-decoded, or undefined. */
export function htmlTitle(/** @type {string} */ html) {
  const m = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  if (!m?.[1]) return undefined;
  const title = inlineText(m[1]);
  return title === '' ? undefined : title;
}

/** Plain text of an HTML fragment on one line: tags dropped, entities decoded, spaces collapsed. */
export function inlineText(/** @type {string} */ fragment) {
  return convert(fragment, { wordwrap: false }).replace(/\s+/g, ' ').trim();
}

/** The charset a page declares in a <meta> tag, looked for in its first bytes. */
export function metaCharset(/** @type {Buffer} */ bytes) {
  const head = bytes.subarray(0, 2048).toString('latin1');
  const m = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head);
  return m?.[1];
}
