/** What every area of the conformance suite shares: the store under test and row helpers. */
import type { ComponentDescription } from "@hookline/core";
import { expect, it } from "vitest";
import type { FaultPoint } from "../adapter/faults.js";
import {
  type AppendedEvent,
  type ClaimedDelivery,
  type ClaimOptions,
  type DeployedComponent,
  type EventInput,
  type Store,
  StoreError,
  type Webhook,
} from "../types/index.js";

/**
 * A fault plan: the fault hook (`FaultHook` of `@hookline/store/adapter`) an adapter under test is
 * built with (directly, or through a client wrapper), armed by the suite to fail one part of the
 * next commit.
 */
export interface FaultPlan {
  /** Fails the next write of `point` (once). */
  arm(point: FaultPoint): void;
  /** Removes an armed fault that did not fire. */
  disarm(): void;
  /** Called by the adapter (or its client wrapper) before writing `point`: throws when armed there. */
  before(point: FaultPoint): void;
}

/**
 * Makes a {@link FaultPlan}. Build the store under test with it (the memory store's `faults` option,
 * or a SQL client wrapper that calls `before` for the statement writing each part) and pass it to
 * {@link runStoreConformance} as `faultInjection`.
 *
 * @example
 * ```ts
 * const faults = createFaultPlan();
 * runStoreConformance("memory", () => createMemoryStore({ faults }), { notifications: true, faultInjection: faults });
 * ```
 */
export function createFaultPlan(): FaultPlan {
  let armed: FaultPoint | undefined;
  return {
    arm(point) {
      armed = point;
    },
    disarm() {
      armed = undefined;
    },
    before(point) {
      if (armed !== point) return;
      armed = undefined;
      throw new Error(`injected fault before writing ${point}`);
    },
  };
}

/**
 * What an adapter can do beyond the common contract (unstorage-style flags): the suite runs the
 * tests of each capability an adapter declares, and shows the others as skipped.
 */
export interface StoreCapabilities {
  /**
   * `store.notifications` exists and announces changes (its tests run, and fail if it is absent).
   * `"others"`: an instance announces its changes only while another instance over the same data can
   * hear them (a database no other process opens, such as PGlite's: an instance ignores its own
   * notices, so writing them would be wasted); the tests then listen through a second instance
   * (`multiProcess`, required).
   */
  notifications?: boolean | "others";
  /**
   * The store shares its data with other processes: this opens a second store instance over the same
   * data (as another node would). Claims across instances never overlap and notices cross them.
   */
  multiProcess?: () => Promise<Store> | Store;
  /** The fault plan the store under test was built with: commits are shown to be all or nothing. */
  faultInjection?: FaultPlan;
  /**
   * The store has workflows: `workflows`, `executions`, `env` and `queue.executions` (their tests
   * run, and fail if a part is absent).
   */
  workflows?: boolean;
  /**
   * The queue hands a finished row's slot on (`queue.deliveries.completeAndTakeNext`): its test runs,
   * and fails if the method is absent.
   */
  handOff?: boolean;
}

/** Options of {@link runStoreConformance}: the adapter's capabilities and a timeout. */
export interface ConformanceOptions extends StoreCapabilities {
  /** Timeout of each test, and of making the store, in milliseconds (vitest's default when absent). */
  timeout?: number;
}

let counter = 0;
/** A unique label, so that tests never collide with rows of earlier tests or runs. */
export const unique = (label: string): string =>
  `${label}-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

// Tests that claim rows by time use their own window of (past) time. Each window is below every
// earlier one, so rows left behind by earlier tests of the same store are never due in a later window.
let windowBase = 1_000_000_000_000;
/** The start of a fresh window of past time (see above). */
export const nextWindow = (): number => {
  windowBase -= 1_000_000_000;
  return windowBase;
};

/** A minimal component description, as the engine extracts at save time. */
export const DESCRIPTION: ComponentDescription = {
  type: "source",
  name: "Test",
  version: "0.0.1",
  props: {},
  methods: [],
  hooks: [],
  hasAdditionalProps: false,
};

/** `count` events of `channel` with `ts` from `ts` on and bodies `{ n: i }`. */
export const events = (count: number, ts: number, channel = "default"): EventInput[] =>
  Array.from({ length: count }, (_, i) => ({ channel, ts: ts + i, body: { n: i } }));

/** Asserts that `promise` rejects with a {@link StoreError} of `code` (and `field`, when given). */
export async function expectStoreError(
  promise: Promise<unknown>,
  code: string,
  field?: string,
): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(StoreError);
  expect((error as StoreError).code).toBe(code);
  if (field !== undefined) expect((error as StoreError).field).toBe(field);
}

/** The suite's view of the store under test, with helpers that make rows through it. */
export class SuiteContext {
  /** The store under test (set once it is made). */
  store!: Store;

  constructor(readonly options: ConformanceOptions) {}

  /** Registers a test with the suite's timeout. */
  test(title: string, fn: () => Promise<void>): void {
    it(title, fn, this.options.timeout);
  }

  /** A new workspace's id. */
  async workspace(label = "ws"): Promise<string> {
    return (await this.store.workspaces.create({ name: unique(label) })).id;
  }

  /** A new deployed component (and its saved component) in the workspace. */
  async component(
    workspaceId: string,
    extra: { endpointId?: string; slug?: string } = {},
  ): Promise<DeployedComponent> {
    const sc = await this.store.savedComponents.create({
      workspaceId,
      code: "export default {}",
      codeHash: unique("hash"),
      filename: "component.mjs",
      bundle: "export default {}",
      description: DESCRIPTION,
    });
    return this.store.deployedComponents.create({
      workspaceId,
      savedComponentId: sc.id,
      name: "Test component",
      slug: extra.slug ?? unique("slug"),
      props: { greeting: "hi" },
      active: true,
      ...(extra.endpointId === undefined ? {} : { endpointId: extra.endpointId }),
    });
  }

  /** A new webhook of the workspace. */
  webhook(workspaceId: string, active = true): Promise<Webhook> {
    return this.store.webhooks.create({
      workspaceId,
      url: "https://example.com/hook",
      name: "Hook",
      active,
      secrets: [{ value: "encrypted-secret", createdAt: 1 }],
    });
  }

  /** Commits events of an emitter (the outbox), at `now` when given. */
  emit(
    workspaceId: string,
    componentId: string,
    input: EventInput[],
    now?: number,
  ): Promise<AppendedEvent[]> {
    return this.store.emits.commit({
      workspaceId,
      componentId,
      events: input,
      ...(now === undefined ? {} : { now }),
    });
  }

  /** A workspace, an emitter, `hooks` active webhooks subscribed to it, and `count` committed events. */
  async outbox(count: number, now: number, hooks = 1) {
    const ws = await this.workspace("outbox");
    const emitter = await this.component(ws);
    const webhooks: Webhook[] = [];
    for (let i = 0; i < hooks; i++) {
      const hook = await this.webhook(ws);
      await this.store.subscriptions.create({ workspaceId: ws, emitterId: emitter.id, listenerId: hook.id });
      webhooks.push(hook);
    }
    const appended = count > 0 ? await this.emit(ws, emitter.id, events(count, now), now) : [];
    const deliveryIds = appended.flatMap((event) => event.deliveryIds);
    return { ws, emitter, webhooks, appended, deliveryIds };
  }

  /** Claims deliveries at `now` for `owner` until nothing is returned; returns only the rows in `ours`. */
  async drain(
    ours: Set<string>,
    claim: Pick<ClaimOptions, "owner" | "now"> & Partial<ClaimOptions>,
  ): Promise<ClaimedDelivery[]> {
    const result: ClaimedDelivery[] = [];
    for (let round = 0; round < 100; round++) {
      const rows = await this.store.queue.deliveries.claim({ leaseMs: 60_000, limit: 100, ...claim });
      if (rows.length === 0) break;
      result.push(...rows.filter((row) => ours.has(row.id)));
    }
    return result;
  }
}
