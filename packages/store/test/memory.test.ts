import { createMemoryStore } from "../src/memory.js";
import { runStoreConformance } from "../src/testing.js";

runStoreConformance("memory", () => createMemoryStore());
