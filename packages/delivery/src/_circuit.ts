/**
 * The circuit breaker of a delivery worker: a webhook whose attempts keep failing is left alone for
 * a while (its deliveries stay due, untouched), then tried again; a success closes the circuit.
 * State is per worker and in memory: each node learns on its own.
 */

/** Tuning of {@link createCircuits}. */
export interface CircuitOptions {
  /** Failed attempts in a row that open a circuit. */
  failures: number;
  /** How long a circuit first stays open. */
  cooldownMs: number;
  /** The longest it stays open (the cooldown doubles each time it opens again). */
  maxCooldownMs: number;
}

interface Circuit {
  /** Failed attempts in a row. */
  failures: number;
  /** While set and in the future, the circuit is open. */
  openUntil?: number;
  /** How long it opens next time. */
  cooldownMs: number;
}

/** The circuits of one worker, by webhook id. */
export interface Circuits {
  /** Webhooks whose circuit is open at `now`: claims leave their deliveries alone. */
  open(now: number): string[];
  /** Records an attempt's outcome; returns when the circuit opened, if this failure opened it. */
  record(webhookId: string, ok: boolean, now: number): number | undefined;
  /** Until when the webhook's circuit is open at `now`; undefined when it is closed. */
  openUntil(webhookId: string, now: number): number | undefined;
}

/** Creates the circuit breakers of a worker. */
export function createCircuits(options: CircuitOptions): Circuits {
  const circuits = new Map<string, Circuit>();
  return {
    open(now) {
      const ids: string[] = [];
      for (const [id, circuit] of circuits) {
        if (circuit.openUntil !== undefined && circuit.openUntil > now) ids.push(id);
      }
      return ids;
    },
    openUntil(webhookId, now) {
      const until = circuits.get(webhookId)?.openUntil;
      return until !== undefined && until > now ? until : undefined;
    },
    record(webhookId, ok, now) {
      if (ok) {
        circuits.delete(webhookId); // Closed, and the next opening starts from the first cooldown.
        return undefined;
      }
      let circuit = circuits.get(webhookId);
      if (!circuit) {
        circuit = { failures: 0, cooldownMs: options.cooldownMs };
        circuits.set(webhookId, circuit);
      }
      // An attempt that started before the circuit opened and ends while it is open changes nothing.
      if (circuit.openUntil !== undefined && circuit.openUntil > now) return undefined;
      circuit.failures++;
      // Half-open (it was open and the pause is over): one more failure opens it again at once.
      const reopening = circuit.openUntil !== undefined;
      if (!reopening && circuit.failures < options.failures) return undefined;
      circuit.openUntil = now + circuit.cooldownMs;
      circuit.cooldownMs = Math.min(circuit.cooldownMs * 2, options.maxCooldownMs);
      return circuit.openUntil;
    },
  };
}
