// Hookline essentials: common text transformations, as Pipedream's Formatting app offers.
const ops = {
  uppercase: (s) => s.toUpperCase(),
  lowercase: (s) => s.toLowerCase(),
  trim: (s) => s.trim(),
  title_case: (s) => s.toLowerCase().replace(/(^|\s)\S/g, (c) => c.toUpperCase()),
  slugify: (s) =>
    s
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, ""),
  url_encode: (s) => encodeURIComponent(s),
  url_decode: (s) => decodeURIComponent(s),
  base64_encode: (s) => Buffer.from(s, "utf8").toString("base64"),
  base64_decode: (s) => Buffer.from(s, "base64").toString("utf8"),
  parse_json: (s) => JSON.parse(s),
  strip_html: (s) => s.replace(/<[^>]*>/g, ""),
};

export default {
  key: "formatting-format-text",
  name: "Format Text",
  description:
    "Transform text: change case, trim, slugify, URL- or Base64-encode and decode, parse JSON, strip HTML tags.",
  version: "0.1.0",
  type: "action",
  props: {
    input: {
      type: "string",
      label: "Input",
      description: "The text, such as `{{steps.trigger.event.body.title}}`.",
    },
    operation: { type: "string", label: "Operation", options: Object.keys(ops) },
  },
  async run({ $ }) {
    const op = ops[this.operation];
    if (!op) throw new Error(`Unknown operation ${this.operation}`);
    const out = op(String(this.input ?? ""));
    $.export("$summary", `${this.operation} done`);
    return out;
  },
};
