/** What the destination tests share: a step context, cleanups, the error a send fails with, a closed port. */
import { createServer } from "node:net";
import { afterEach, expect } from "vitest";
import { type DestinationContext, DestinationError } from "../src/index.js";

/** The step a test sends from. */
export const context: DestinationContext = {
  workspaceId: "ws_1",
  workflowId: "p_abc",
  executionId: "exe_123",
  stepName: "notify",
};

/** Registers cleanups run (newest first) after each test of the calling file. */
export function useCleanups(): (cleanup: () => unknown) => void {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return (cleanup) => {
    cleanups.push(cleanup);
  };
}

/** The {@link DestinationError} `promise` fails with (the test fails when it resolves). */
export async function failure(promise: Promise<unknown>): Promise<DestinationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DestinationError);
  return error as DestinationError;
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The `validation_failed` problems a configuration call throws (none when it does not throw). */
export function configProblems(create: () => unknown): { code: string; path: string; message: string }[] {
  try {
    create();
  } catch (error) {
    expect(error).toMatchObject({ name: "HooklineError", code: "validation_failed" });
    return (error as { details: { problems: { code: string; path: string; message: string }[] } }).details
      .problems;
  }
  return [];
}
