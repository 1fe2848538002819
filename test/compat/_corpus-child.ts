// A child process of loadCorpus (_corpus.ts): loads the files it is sent and sends the results back.
import { loadFiles } from "./_corpus.js";

process.once("message", async (files) => {
  const results = await loadFiles(files as Parameters<typeof loadFiles>[0]);
  process.send?.(results, () => process.exit(0));
});
