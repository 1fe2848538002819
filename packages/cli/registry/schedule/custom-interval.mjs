// Hookline essentials: emits an event on a schedule, every N seconds or on a cron expression,
// like Pipedream's schedule sources. The event is the timer's own: `{ timestamp, interval_seconds }`
// or `{ timestamp, cron, timezone }`.
export default {
  key: "schedule-custom-interval",
  name: "Custom Interval",
  description: "Emit an event on a schedule: every N seconds, or on a cron expression in a time zone.",
  version: "0.1.0",
  type: "source",
  props: {
    schedule: { type: "app", app: "schedule" },
    timer: {
      type: "$.interface.timer",
      label: "Schedule",
      description: "How often to emit: `{ intervalSeconds }` or `{ cron, timezone }`.",
      default: { intervalSeconds: 3600 },
    },
  },
  async run(event) {
    const at = new Date(event.timestamp * 1000).toISOString();
    this.$emit(event, { id: event.timestamp, summary: `Scheduled at ${at}`, ts: event.timestamp * 1000 });
  },
};
