// oidc-provider ships no types; the tests use a small part of it.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";
  export default class Provider {
    constructor(issuer: string, configuration: unknown);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: any[]) => void): this;
    AccessToken: { find(token: string): Promise<{ accountId: string } | undefined> };
  }
}
