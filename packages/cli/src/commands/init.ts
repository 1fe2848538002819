/** `pd init source|action|app <name>`: scaffold a component that deploys as is. */
import { existsSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { _flag, _required } from "../_args.js";
import { defineCommand } from "../_command.js";
import { CliError, out, style } from "../_output.js";

/** `My Thing` → `my-thing`. @internal */
export function _slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "component"
  );
}

/** `my-thing` → `My Thing`. @internal */
function _title(slug: string): string {
  return slug
    .split("-")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(" ");
}

/** The files to write for a kind of component. @internal */
export function _templates(kind: string, name: string): Record<string, string> {
  const slug = _slug(name);
  const title = _title(slug);
  const file = `${name}.mjs`;
  if (kind === "source") {
    return {
      [file]: `// A source: every HTTP request to its endpoint is emitted as an event.
// Deploy: pd deploy ${file} --name ${slug}
// Publish (its key is <app or namespace>-<name slug>, its version semver): pd publish ${file}
export default {
  key: "custom-${slug}",
  name: "${title}",
  version: "0.1.0",
  description: "Emits every HTTP request it receives",
  dedupe: "unique",
  props: {
    http: "$.interface.http",
    db: "$.service.db",
    greeting: { type: "string", label: "Greeting", optional: true, default: "hello" },
  },
  async run(event) {
    const count = ((await this.db.get("count")) ?? 0) + 1;
    await this.db.set("count", count);
    console.log(\`\${this.greeting}: request #\${count}: \${event.method} \${event.path}\`);
    this.$emit(event.body ?? {}, { id: \`\${Date.now()}-\${count}\`, summary: \`\${event.method} \${event.path}\` });
  },
};
`,
    };
  }
  if (kind === "action") {
    return {
      [file]: `// An action: a workflow step with props. Actions are published, not deployed:
// pd publish ${file}              (this workspace; --registry makes it public)
export default {
  type: "action",
  key: "custom-${slug}",
  name: "${title}",
  version: "0.1.0",
  description: "Returns a greeting",
  props: {
    greeting: { type: "string", label: "Greeting", optional: true, default: "hello" },
  },
  async run({ $ }) {
    $.export("$summary", \`Said \${this.greeting}\`);
    return { message: \`\${this.greeting} from ${title}\` };
  },
};
`,
    };
  }
  if (kind === "app") {
    const appFile = `${name}.app.mjs`;
    return {
      [appFile]: `// The ${title} app: methods and prop definitions shared by its components.
export default {
  type: "app",
  app: "${slug}",
  propDefinitions: {
    label: { type: "string", label: "Label", description: "A label added to every event" },
  },
  methods: {
    decorate(label, body) {
      return { label, body, at: new Date().toISOString() };
    },
  },
};
`,
      [file]: `// A source built on ${appFile}: relative imports are bundled by \`pd deploy\`.
// Deploy: pd deploy ${file} --name ${slug} --prop label=demo
import app from "./${basename(appFile)}";

export default {
  key: "${slug}-new-request",
  name: "New Request",
  version: "0.1.0",
  props: {
    http: "$.interface.http",
    label: { ...app.propDefinitions.label, optional: true, default: "${slug}" },
  },
  methods: { ...app.methods },
  async run(event) {
    this.$emit(this.decorate(this.label, event.body ?? {}), { summary: \`\${event.method} \${event.path}\` });
  },
};
`,
    };
  }
  throw new CliError("usage", `cannot scaffold "${kind}": use source, action or app`);
}

export default defineCommand({
  name: "init",
  summary: "Scaffold a component (<name>.mjs) that deploys (a source) or publishes (an action) as is.",
  examples: [
    "pd init source hello    # hello.mjs: an HTTP source",
    "pd init action greet",
    "pd init app acme",
  ],
  usage: "init source|action|app <name> [--force]",
  options: { force: { type: "boolean" } },
  async run(args) {
    const kind = _required(args, 0, this.usage);
    const name = _required(args, 1, this.usage);
    const files = _templates(kind, name);
    if (!_flag(args, "force")) {
      for (const file of Object.keys(files)) {
        if (existsSync(file))
          throw new CliError("file_exists", `${file} exists; pass --force to overwrite it`);
      }
    }
    for (const [file, text] of Object.entries(files)) {
      writeFileSync(file, text);
      out(`${style.green("✔")} Wrote ${file}`);
    }
    const main = `${name}.mjs`;
    out(kind === "action" ? `  next: pd publish ${main}` : `  next: pd deploy ${main} --name ${_slug(name)}`);
  },
});
