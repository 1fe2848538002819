/**
 * The engine's clock. Timers, `createdAt` stamps and event times read it, so tests (and
 * simulations) can drive time by hand with {@link createFakeClock}.
 */

/** A source of the current time in epoch milliseconds. */
export interface Clock {
  /** The current time, epoch ms. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. */
export interface FakeClock extends Clock {
  /** Moves time forward by `ms`. */
  advance(ms: number): void;
  /** Jumps to an absolute time. */
  set(ms: number): void;
}

/**
 * Creates a {@link FakeClock} starting at `start` (epoch ms).
 *
 * @example
 * ```ts
 * const clock = createFakeClock(Date.UTC(2026, 0, 1));
 * const hookline = createHookline({ clock });
 * clock.advance(60_000);
 * await hookline.timers.tick(); // runs every timer due at the new time
 * ```
 */
export function createFakeClock(start = Date.UTC(2026, 0, 1)): FakeClock {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
    set(ms) {
      now = ms;
    },
  };
}
