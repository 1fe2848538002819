// Hookline essentials: wait before the next step, durably ($.flow.delay: the run is stored
// "delayed" and resumes on time, even after a restart).
export default {
  key: "helper_functions-delay",
  name: "Delay",
  description: "Wait before the next step runs (durably: a restart does not lose the wait). At most a year.",
  version: "0.1.0",
  type: "action",
  props: {
    amount: { type: "integer", label: "Amount", min: 0 },
    unit: {
      type: "string",
      label: "Unit",
      options: ["milliseconds", "seconds", "minutes", "hours", "days"],
      optional: true,
      default: "seconds",
    },
  },
  async run({ $ }) {
    const ms = { milliseconds: 1, seconds: 1e3, minutes: 6e4, hours: 36e5, days: 864e5 }[
      this.unit ?? "seconds"
    ];
    const wait = this.amount * ms;
    $.export("$summary", `Waiting ${this.amount} ${this.unit ?? "seconds"}`);
    const { resume_url, cancel_url } = $.flow.delay(wait);
    return { delay_ms: wait, resume_url, cancel_url };
  },
};
