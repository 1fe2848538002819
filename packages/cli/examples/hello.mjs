// Hello: an HTTP source. Every request to its endpoint becomes an event, and deploying it emits
// a first event, so `pd events hello` has something to show right away.
// Deploy: pd deploy packages/cli/examples/hello.mjs --name hello
export default {
  key: "demo-hello",
  name: "Hello",
  version: "0.1.0",
  description: "Emits a welcome event on deploy, then every HTTP request it receives",
  props: {
    http: "$.interface.http",
    greeting: { type: "string", label: "Greeting", optional: true, default: "hello" },
  },
  hooks: {
    async deploy() {
      this.$emit({ greeting: this.greeting, deployed: true }, { summary: `${this.greeting} from Hookline` });
    },
  },
  async run(event) {
    console.log(`${event.method} ${event.path}`);
    this.$emit(event.body ?? {}, { summary: `${event.method} ${event.path}` });
  },
};
