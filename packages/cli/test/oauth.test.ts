// `pd oauth-clients` and `pd accounts connect|update` against a Hookline server and a real OAuth
// server on loopback (oidc-provider): set a client, print the sign-in URL and wait while the user
// signs in (here without a browser), rename the account.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createHookline, type Hookline } from "@hookline/engine";
import { createHandler } from "@hookline/http";
import { toNodeListener } from "@hookline/http/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeAs, startProvider, type TestProvider } from "../../../test/oauth/_provider.js";
import { baseEnv, pd, spawnPd, tempDir, waitFor } from "./_helpers.js";

let hookline: Hookline;
let provider: TestProvider;
let close: () => Promise<void>;
let base: string;
let env: NodeJS.ProcessEnv;
const cwd = tempDir();

beforeAll(async () => {
  let listener: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => listener?.(req, res));
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  hookline = createHookline({
    baseUrl: base,
    allowPrivateUrls: true,
    worker: false,
    secretsKey: "cli-oauth",
  });
  const ws = await hookline.workspaces.create({ name: "cli" });
  const { key } = await hookline.apiKeys.create(ws.id);
  listener = toNodeListener(createHandler(hookline, { rateLimit: false }));
  provider = await startProvider([`${base}/oauth/callback`]);
  env = baseEnv({
    HOOKLINE_API_KEY: key,
    HOOKLINE_BASE_URL: base,
    HOOKLINE_CONNECT_POLL_MS: "100",
    XDG_CONFIG_HOME: join(cwd, "config"),
  });
  close = async () => {
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
    await hookline.close();
    await provider.close();
  };
}, 60_000);

afterAll(async () => close?.());

describe("pd oauth-clients and pd accounts connect", () => {
  it("sets a client, connects an account by signing in at the URL it prints, and renames it", async () => {
    const set = await pd(
      [
        "oauth-clients",
        "set",
        "acme",
        "--client-id",
        provider.clientId,
        "--client-secret",
        provider.clientSecret,
        "--authorize-url",
        `${provider.issuer}/auth`,
        "--token-url",
        `${provider.issuer}/token`,
        "--issuer",
        provider.issuer,
        "--scope",
        "openid",
        "--scope",
        "offline_access",
      ],
      { cwd, env },
    );
    expect(set.stderr).toBe("");
    expect(set.stdout).toContain(`register this redirect URL with the provider: ${base}/oauth/callback`);
    const listed = JSON.parse((await pd(["oauth-clients", "list", "--json"], { cwd, env })).stdout);
    expect(listed).toEqual([
      expect.objectContaining({ app: "acme", client_id: "hookline", has_client_secret: true }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(provider.clientSecret);

    const connect = spawnPd(["accounts", "connect", "acme", "--name", "From the CLI"], { cwd, env });
    const url = await waitFor(
      () => /^(http\S+)$/m.exec(connect.output.stdout)?.[1],
      20_000,
      "the sign-in URL",
    );
    // The user opens the URL and signs in; the provider sends the browser to Hookline's callback.
    const callback = await authorizeAs(url, "ada", `${base}/oauth/callback`);
    expect((await fetch(callback)).status).toBe(200);
    const code = await connect.exited;
    expect(code, connect.output.stderr).toBe(0);
    expect(connect.output.stdout).toMatch(/Connected acme account From the CLI \(apn_\w+\)/);

    const renamed = await pd(["accounts", "update", "From the CLI", "--name", "Ada"], { cwd, env });
    expect(renamed.stdout).toMatch(/Updated acme account Ada \(apn_\w+\)/);
    const list = await pd(["accounts", "list"], { cwd, env });
    expect(list.stdout).toMatch(/apn_\w+\s+acme\s+Ada\s+active/);

    const unknown = await pd(["accounts", "connect", "nothing"], { cwd, env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^oauth_not_configured: /m);
  });
});
