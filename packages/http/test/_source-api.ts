// The REST set-up the issue 23 tests share: one of STORES, the API (fetch mode, workers started), a
// webhook receiver on loopback, and a BATCH_SOURCE deployed; opened before the describe's tests and
// closed after them.
import { afterAll, beforeAll, expect } from "vitest";
import { type Api, type Receiver, startApi, startReceiver } from "./_harness.js";
import { BATCH_SOURCE, type OpenStore } from "./_stores.js";

/** What {@link withBatchSource} opened (set once its `beforeAll` ran). */
export interface BatchSourceApi {
  api: Api;
  receiver: Receiver;
  sourceId: string;
  /** Runs the source once: it emits `events` (`{ body, channel?, summary? }`) in order. */
  emit(events: { body: unknown; channel?: string; summary?: string }[]): Promise<void>;
}

/** Registers the set-up with the enclosing describe's hooks; read the fields inside tests. */
export function withBatchSource(open: OpenStore, name: string): BatchSourceApi {
  const ctx = {} as BatchSourceApi & { close?: () => Promise<void> };
  beforeAll(async () => {
    const opened = await open();
    ctx.close = opened.close;
    ctx.api = await startApi("fetch", { engine: { store: opened.store } });
    ctx.api.hookline.start();
    ctx.receiver = await startReceiver();
    const source = await ctx.api.call("POST", "/v1/sources", {
      body: { component_code: BATCH_SOURCE, name },
    });
    expect(source.status, JSON.stringify(source.body)).toBe(200);
    ctx.sourceId = source.body.data.id;
  }, 60_000);
  afterAll(async () => {
    await ctx.api?.close();
    await ctx.receiver?.close();
    await ctx.close?.();
  });
  ctx.emit = async (events) => {
    const res = await ctx.api.call("POST", `/v1/sources/${ctx.sourceId}/run`, {
      body: { event: { events } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  return ctx;
}
