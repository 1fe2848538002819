/**
 * `@hookline/store/testing`: the conformance suite every {@link Store} adapter runs, one file per
 * area (a sub-store, the queue, notifications, lossless text, isolation), with capability flags
 * (see {@link StoreCapabilities}) instead of per-adapter skips.
 *
 * @packageDocumentation
 */
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { Store } from "../types/index.js";
import { accountsSuite } from "./accounts.js";
import { apiKeysSuite } from "./api-keys.js";
import { type ConformanceOptions, SuiteContext } from "./context.js";
import { dataStoresSuite } from "./data-stores.js";
import { dedupeSuite } from "./dedupe.js";
import { deliveriesSuite } from "./deliveries.js";
import { deployedComponentsSuite } from "./deployed-components.js";
import { emitsSuite } from "./emits.js";
import { eventsSuite } from "./events.js";
import { idempotencySuite } from "./idempotency.js";
import { isolationSuite } from "./isolation.js";
import { kvSuite } from "./kv.js";
import { logsSuite } from "./logs.js";
import { multiProcessSuite } from "./multi-process.js";
import { notificationsSuite } from "./notifications.js";
import { queueSuite } from "./queue.js";
import { replaySuite } from "./replay.js";
import { replayJobsSuite } from "./replay-jobs.js";
import { requestsSuite } from "./requests.js";
import { savedComponentsSuite } from "./saved-components.js";
import { scanBudgetSuite } from "./scan-budget.js";
import { searchSuite } from "./search.js";
import { settingsSuite } from "./settings.js";
import { subscriptionsSuite } from "./subscriptions.js";
import { textSuite } from "./text.js";
import { timersSuite } from "./timers.js";
import { webhooksSuite } from "./webhooks.js";
import { workflowsSuite } from "./workflows.js";
import { durableRunsSuite } from "./workflows-durable.js";
import { workspacesSuite } from "./workspaces.js";

export {
  type ConformanceOptions,
  createFaultPlan,
  type FaultPlan,
  type StoreCapabilities,
} from "./context.js";

/**
 * Registers the Store conformance tests (vitest `describe`/`it`) for one adapter. The factory is
 * called once, in `beforeAll`; the store is closed in `afterAll`. Each test makes its own
 * workspaces, so the store may hold rows of earlier tests (or runs). The tests of a capability the
 * adapter does not declare are shown as skipped.
 *
 * @param name - The adapter's name, shown in the test titles.
 * @param factory - Makes the store under test.
 * @param options - The adapter's capabilities (`notifications`, `multiProcess`, `faultInjection`,
 *   `workflows`) and
 *   a timeout.
 * @example
 * ```ts
 * import { createMemoryStore } from "@hookline/store";
 * import { createFaultPlan, runStoreConformance } from "@hookline/store/testing";
 *
 * const faults = createFaultPlan();
 * runStoreConformance("memory", () => createMemoryStore({ faults }), {
 *   notifications: true,
 *   faultInjection: faults,
 * });
 * ```
 */
export function runStoreConformance(
  name: string,
  factory: () => Promise<Store> | Store,
  options: ConformanceOptions = {},
): void {
  describe(`Store conformance: ${name}`, () => {
    const t = new SuiteContext(options);

    beforeAll(async () => {
      t.store = await factory();
    }, options.timeout);

    afterAll(async () => {
      if (t.store) await expect(t.store.close()).resolves.toBeUndefined();
    });

    workspacesSuite(t);
    apiKeysSuite(t);
    accountsSuite(t);
    settingsSuite(t);
    idempotencySuite(t);
    savedComponentsSuite(t);
    deployedComponentsSuite(t);
    dedupeSuite(t);
    kvSuite(t);
    dataStoresSuite(t);
    emitsSuite(t);
    eventsSuite(t);
    searchSuite(t);
    scanBudgetSuite(t);
    logsSuite(t);
    webhooksSuite(t);
    workflowsSuite(t);
    durableRunsSuite(t);
    subscriptionsSuite(t);
    timersSuite(t);
    deliveriesSuite(t);
    replaySuite(t);
    replayJobsSuite(t);
    queueSuite(t);
    requestsSuite(t);
    notificationsSuite(t);
    multiProcessSuite(t);
    textSuite(t);
    isolationSuite(t);
  });
}
