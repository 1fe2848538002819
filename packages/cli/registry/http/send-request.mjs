// Hookline essentials: an HTTP request from a workflow step (through the server's SSRF guard), its
// answer as the step's return value. Pipedream's http "Send any HTTP Request", simplified.
export default {
  key: "http-send-request",
  name: "Send Request",
  description:
    "Send an HTTP request and return its status, headers and body (JSON parsed when the answer is JSON). Private addresses are refused unless the server allows them.",
  version: "0.1.0",
  type: "action",
  props: {
    http: { type: "app", app: "http" },
    url: { type: "string", label: "URL", description: "An `http` or `https` URL." },
    method: {
      type: "string",
      label: "Method",
      options: ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"],
      optional: true,
      default: "GET",
    },
    headers: { type: "object", label: "Headers", description: "Header names and values.", optional: true },
    body: {
      type: "any",
      label: "Body",
      description: "Sent as JSON unless it is text. None for GET and HEAD.",
      optional: true,
    },
    failOnError: {
      type: "boolean",
      label: "Fail on 4xx and 5xx",
      description: "Fail the step when the answer is not 2xx or 3xx.",
      optional: true,
      default: true,
    },
  },
  async run({ $ }) {
    const method = this.method ?? "GET";
    const headers = { ...(this.headers ?? {}) };
    let body;
    if (this.body !== undefined && method !== "GET" && method !== "HEAD") {
      body = typeof this.body === "string" ? this.body : JSON.stringify(this.body);
      if (
        typeof this.body !== "string" &&
        !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")
      )
        headers["content-type"] = "application/json";
    }
    const res = await fetch(this.url, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    let data = text;
    if ((res.headers.get("content-type") ?? "").includes("json")) {
      try {
        data = JSON.parse(text);
      } catch {}
    }
    $.export("$summary", `${method} ${this.url}: ${res.status}`);
    if ((this.failOnError ?? true) && res.status >= 400)
      throw new Error(`${method} ${this.url} answered ${res.status}`);
    return { status: res.status, headers: Object.fromEntries(res.headers.entries()), data };
  },
};
