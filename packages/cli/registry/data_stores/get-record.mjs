// Hookline essentials: read a record of one of the workspace's data stores.
export default {
  key: "data_stores-get-record",
  name: "Get Record",
  description:
    "Read the value of a key in a data store (see the Data stores page); `undefined` when absent unless a default is given.",
  version: "0.1.0",
  type: "action",
  props: {
    dataStore: {
      type: "data_store",
      label: "Data store",
      description: "The store's name (created on first write) or `ds_` id.",
    },
    key: { type: "string", label: "Key" },
    defaultValue: {
      type: "any",
      label: "Default value",
      description: "Returned when the key is absent.",
      optional: true,
    },
  },
  async run({ $ }) {
    const found = await this.dataStore.has(this.key);
    $.export("$summary", found ? `Found ${this.key}` : `No record ${this.key}`);
    return found ? await this.dataStore.get(this.key) : this.defaultValue;
  },
};
