import { createMemoryStore } from "../src/index.js";
import { createFaultPlan, runStoreConformance } from "../src/testing/index.js";

const faults = createFaultPlan();
runStoreConformance("memory", () => createMemoryStore({ faults }), {
  notifications: true,
  faultInjection: faults,
  workflows: true,
  handOff: true,
});
