// Hookline essentials: an HTTP endpoint that emits every request it receives and answers it as
// configured (status, content type and body), like Pipedream's http "New Requests" source.
export default {
  key: "http-new-requests",
  name: "New Requests",
  description:
    "Get a URL and emit every HTTP request sent to it (method, path, query, headers and body). The response's status, content type and body are configurable.",
  version: "0.1.0",
  type: "source",
  props: {
    http: { type: "app", app: "http" },
    httpInterface: { type: "$.interface.http", customResponse: true },
    emitBodyOnly: {
      type: "boolean",
      label: "Body Only",
      description: "Emit only the request's body instead of the whole request.",
      optional: true,
      default: false,
    },
    resStatusCode: {
      type: "string",
      label: "Response Status Code",
      description: "The status code of the answer, such as 200 or 202.",
      optional: true,
      default: "200",
    },
    resContentType: {
      type: "string",
      label: "Response Content-Type",
      description: "The content type of the answer.",
      optional: true,
      default: "application/json",
    },
    resBody: {
      type: "string",
      label: "Response Body",
      description: "The body of the answer.",
      optional: true,
      default: '{ "success": true }',
    },
  },
  async run(event) {
    this.httpInterface.respond({
      status: Number(this.resStatusCode ?? "200"),
      headers: { "content-type": this.resContentType ?? "application/json" },
      body: this.resBody ?? '{ "success": true }',
    });
    const summary = `${event.method} ${event.path}`;
    this.$emit(this.emitBodyOnly ? event.body : event, { summary });
  },
};
