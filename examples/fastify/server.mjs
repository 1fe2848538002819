// Hookline registered as a Fastify plugin. See ../README.md for how to run it.
import { createHookline } from "@hookline/engine";
import { createHandler } from "@hookline/http";
import { hooklinePlugin } from "@hookline/http/fastify";
import Fastify from "fastify";

const port = Number(process.env.PORT ?? 3000);
const hookline = createHookline({
  secretsKey: process.env.HOOKLINE_SECRETS_KEY ?? "dev-only",
  // Where this server is reached: sources' endpoint_url is <baseUrl>/http/<endpoint_id>.
  baseUrl: process.env.HOOKLINE_PUBLIC_URL ?? `http://127.0.0.1:${port}`,
  allowPrivateUrls: true,
});
const workspace = await hookline.workspaces.create({ name: "example" });
const { key } = await hookline.apiKeys.create(workspace.id);
const handler = createHandler(hookline);

const app = Fastify();
await app.register(hooklinePlugin, { handler });
app.get("/", async () => ({ hello: "from fastify" }));

await app.listen({ port, host: "127.0.0.1" });
console.log(`HOOKLINE_API_KEY=${key}`);
console.log(`listening on http://127.0.0.1:${app.server.address().port}`);
await hookline.start();

const stop = async () => {
  app.server.closeAllConnections();
  await app.close();
  await hookline.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
