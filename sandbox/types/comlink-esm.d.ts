// comlink has no exports map; its ESM build is imported by path so Node does
// not load the UMD bundle. Reuse the package's own types for it.
declare module 'comlink/dist/esm/comlink.mjs' {
  export * from 'comlink';
}
declare module 'comlink/dist/esm/node-adapter.mjs' {
  import type { Endpoint } from 'comlink';
  /** Adapts a Node MessagePort (or anything with on/off/postMessage) to Comlink's Endpoint. */
  export default function nodeEndpoint(nep: unknown): Endpoint;
}
