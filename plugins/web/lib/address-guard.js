// @ts-check
/**
 * Which addresses web_fetch may connect to: public unicast only. Private,
 * loopback, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT,
 * unique-local, multicast, reserved and unspecified addresses are refused, and
 * so is anything that embeds one (IPv4-mapped IPv6), unless the operator
 * allows a range in WEB_FETCH_ALLOW_CIDRS. Ranges come from ipaddr.js. The
 * check runs on every address a host name resolves to, at connect time (so a
 * DNS answer cannot change between check and use), and on every literal
 * address, for the first URL and for every redirect.
 */
import dns from 'node:dns';
import ipaddr from 'ipaddr.js';
import { Agent } from 'undici';

/**
 * The environment variable in which an operator lists ranges web_fetch may reach anyway, e.g. `10.0.0.0/8,fd00::/8`.
 */
export const ALLOW_ENV = 'WEB_FETCH_ALLOW_CIDRS';

/** The error code of a refused address (the message says which address and how to allow it). */
export const REFUSED_CODE = 'ERR_WEB_FETCH_ADDRESS_REFUSED';

/**
 * The operator's allowed ranges from `value` (comma- or space-separated CIDRs or single addresses).
 * @param {string | undefined} value
 * @returns {Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>}
 */
export function parseAllowed(value) {
  /** @type {Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>} */
  const ranges = [];
  for (const entry of (value ?? '').split(/[\s,]+/).filter(Boolean)) {
    try {
      ranges.push(
        entry.includes('/')
          ? ipaddr.parseCIDR(entry)
          : (() => {
              const address = ipaddr.parse(entry);
              return /** @type {[ipaddr.IPv4 | ipaddr.IPv6, number]} */ ([
                address,
                address.kind() === 'ipv4' ? 32 : 128,
              ]);
            })(),
      );
    } catch {
      throw new Error(
        `${ALLOW_ENV} has ${JSON.stringify(entry)}, which is not an IP address or CIDR range (e.g. 10.0.0.0/8).`,
      );
    }
  }
  return ranges;
}

/**
 * Why `address` may not be fetched from, or undefined when it may.
 * @param {string} address an IPv4 or IPv6 address
 * @param {Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>} allowed
 */
export function addressRefusal(address, allowed) {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it is.
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  if (allowed.some(([base, bits]) => base.kind() === parsed.kind() && parsed.match(base, bits))) return undefined;
  return `${parsed.toString()} is a ${range} address`;
}

/**
 * The error a refused address gives.
 * @param {string} host
 * @param {string} why
 */
function refused(host, why) {
  const error = new Error(
    `${host} is not on the public internet (${why}); web_fetch does not fetch from private, loopback, ` +
      `link-local or metadata addresses. An operator can allow a range with ${ALLOW_ENV}.`,
  );
  return Object.assign(error, { code: REFUSED_CODE });
}

/**
 * Checks a URL's host when it is an address literal (names are checked when they resolve); throws when refused.
 * @param {URL} url
 * @param {Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>} allowed
 */
export function checkLiteralHost(url, allowed) {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(host)) return;
  const why = addressRefusal(host, allowed);
  if (why) throw refused(url.host, why);
}

/**
 * A dns.lookup for net.connect that refuses a name when any address it resolves to is refused.
 * @param {Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>} allowed
 * @returns {import('node:net').LookupFunction}
 */
function guardedLookup(allowed) {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      for (const { address } of addresses) {
        const why = addressRefusal(address, allowed);
        if (why) return callback(refused(hostname, why), '', 0);
      }
      if (options.all) return /** @type {any} */ (callback)(null, addresses);
      const [first] = addresses;
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** @type {Map<string, Agent>} */
const agents = new Map();

/**
 * The undici dispatcher whose connections go only where `allowEnv` allows (one per distinct setting, reused).
 * @param {string | undefined} allowEnv
 */
export function guardedDispatcher(allowEnv) {
  const key = allowEnv ?? '';
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({ connect: { lookup: guardedLookup(parseAllowed(allowEnv)) } });
    agents.set(key, agent);
  }
  return agent;
}
