// A webhook receiver for trying Hookline out: prints each delivery it gets and answers 204.
// Run: node packages/cli/examples/receiver.mjs (listens on http://127.0.0.1:3001; PORT=... for
// another port). docs/getting-started.md shows a receiver that verifies the signature too.
import { createServer } from "node:http";

const port = Number(process.env.PORT ?? 3001);

createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    console.log("received", req.headers["webhook-id"], body);
    res.writeHead(204).end();
  });
}).listen(port, "127.0.0.1", () => console.log(`receiver listening on http://127.0.0.1:${port}/`));
