// Hookline essentials: write a record of one of the workspace's data stores.
export default {
  key: "data_stores-set-record",
  name: "Set Record",
  description:
    "Write a JSON value under a key of a data store, optionally expiring after a number of seconds.",
  version: "0.1.0",
  type: "action",
  props: {
    dataStore: {
      type: "data_store",
      label: "Data store",
      description: "The store's name (created on first write) or `ds_` id.",
    },
    key: { type: "string", label: "Key" },
    value: {
      type: "any",
      label: "Value",
      description: "Any JSON value, such as `{{steps.trigger.event.body}}`.",
    },
    ttl: { type: "integer", label: "Expires after (seconds)", optional: true, min: 1 },
  },
  async run({ $ }) {
    await this.dataStore.set(this.key, this.value, this.ttl ? { ttl: this.ttl } : {});
    $.export("$summary", `Saved ${this.key}`);
    return { key: this.key, value: this.value };
  },
};
