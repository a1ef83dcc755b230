// oidc-provider ships no type declarations; test/support/oauth.ts uses this much of it and
// describes the rest of what it reads where it reads it.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** An OpenID provider (the authorization server of the identity tests). */
  export default class Provider {
    constructor(issuer: string, configuration: object);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    registerGrantType(
      name: string,
      handler: (ctx: never) => Promise<void>,
      parameters?: string[],
      duplicates?: string[],
    ): void;
    on(event: string, listener: (...args: never[]) => void): this;
    proxy: boolean;
  }
}
