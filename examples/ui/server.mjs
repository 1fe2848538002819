// Hookline with its web application on a bare node:http server: withUi() sends /v1 and /http to
// the API handler and everything else to the UI (its files, and index.html for app URLs).
// See ../README.md for how to run it. Build the UI first: npm run build -w @hookline/ui.
import { createServer } from "node:http";
import { createHookline } from "@hookline/engine";
import { createHandler } from "@hookline/http";
import { toNodeListener } from "@hookline/http/node";
import { uiStaticDir, withUi } from "@hookline/ui";

const port = Number(process.env.PORT ?? 3000);
const hookline = createHookline({
  secretsKey: process.env.HOOKLINE_SECRETS_KEY ?? "dev-only",
  // Where this server is reached: sources' endpoint_url is <baseUrl>/http/<endpoint_id>.
  baseUrl: process.env.HOOKLINE_PUBLIC_URL ?? `http://127.0.0.1:${port}`,
  allowPrivateUrls: true,
});
const workspace = await hookline.workspaces.create({ name: "example" });
const { key } = await hookline.apiKeys.create(workspace.id);

const server = createServer(toNodeListener(withUi(createHandler(hookline))));
server.listen(port, "127.0.0.1", () => {
  console.log(`HOOKLINE_API_KEY=${key}`);
  console.log(`UI files in ${uiStaticDir}`);
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
await hookline.start();

const stop = async () => {
  server.close();
  server.closeAllConnections();
  await hookline.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
