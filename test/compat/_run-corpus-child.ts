// A child process of runCorpusIsolated (_run-corpus.ts): runs the package it is sent and sends each
// result back as it comes.
import { type RunCorpusOptions, runCorpus } from "./_run-corpus.js";

process.once("message", async (message) => {
  const { pkg, options } = message as { pkg: string; options: Omit<RunCorpusOptions, "onResult"> };
  await runCorpus([pkg], { ...options, onResult: (result) => process.send?.(result) });
  // Every result is sent before the process ends.
  process.send?.({ done: true }, () => process.exit(0));
});
