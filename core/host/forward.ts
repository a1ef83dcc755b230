/**
 * The one forwarding implementation of `ToolHost`, for the hosts that stand in for another (the
 * opening host, the reloading host and its views). `MEMBERS` lists every member of `ToolHost` with
 * how it is forwarded; `satisfies` makes a member added to `ToolHost` and not listed here a
 * compile error, so no stand-in can forget to forward it. A stand-in says only what differs:
 * which host to forward to, how an asynchronous member reaches it (waiting for it to open,
 * counting the call in flight), and the members it implements itself.
 */
import type { ToolHost } from './tool-host.js';

/**
 * How a member is forwarded: `value` a property read from the host now, `now` a method called on
 * the host now, `later` a method that may wait for the host (`ForwardTarget.later`), `own` a member
 * every stand-in implements itself (its events and its end).
 */
type Forwarding = 'value' | 'now' | 'later' | 'own';

/** Every member of ToolHost, and how a stand-in forwards it. */
export const MEMBERS = {
  config: 'value',
  state: 'value',
  clock: 'value',
  definitions: 'later',
  dispatch: 'later',
  call: 'later',
  refresh: 'later',
  acceptDefinitions: 'later',
  explain: 'now',
  invalidateChecks: 'now',
  use: 'now',
  view: 'now',
  as: 'now',
  on: 'own',
  off: 'own',
  close: 'own',
} as const satisfies Record<keyof ToolHost, Forwarding>;

type Members = typeof MEMBERS;
type MembersOf<F extends Forwarding> = { [K in keyof Members]: Members[K] extends F ? K : never }[keyof Members];
/** The members every stand-in implements itself. */
export type OwnMembers = Pick<ToolHost, MembersOf<'own'>>;
/** The members forwarded by a call that may wait for the host. */
export type LaterMember = MembersOf<'later'>;

/** Where a stand-in forwards to. */
export interface ForwardTarget {
  /** the host to forward to now; throws while there is none */
  now(): ToolHost;
  /** runs `use` on the host an asynchronous member goes to, once there is one */
  later<T>(member: LaterMember, use: (host: ToolHost) => Promise<T>): Promise<T>;
}

/**
 * A ToolHost that forwards every member to `target`, except those in `own` (the `own` members and any it
 * overrides). A forwarded method that returns the host it was called on returns the stand-in instead.
 */
export function forwardingHost<H extends ToolHost>(
  target: ForwardTarget,
  own: OwnMembers & Partial<ToolHost> & Omit<H, keyof ToolHost>,
): H {
  const host = own as unknown as Record<string, unknown>;
  for (const [member, how] of Object.entries(MEMBERS) as Array<[keyof ToolHost, Forwarding]>) {
    if (Object.hasOwn(own, member)) continue;
    if (how === 'value') Object.defineProperty(host, member, { get: () => target.now()[member], enumerable: true });
    else if (how === 'now') host[member] = (...args: unknown[]) => answer(host, target.now(), member, args);
    else if (how === 'later')
      host[member] = (...args: unknown[]) =>
        target.later(member as LaterMember, async (inner) => answer(host, inner, member, args));
  }
  return host as unknown as H;
}

/** Calls `member` on `inner`; what it returns, or the stand-in where it returns `inner` itself. */
function answer(standIn: unknown, inner: ToolHost, member: keyof ToolHost, args: unknown[]): unknown {
  const result = (inner[member] as (...args: unknown[]) => unknown)(...args);
  return result === inner ? standIn : result;
}
