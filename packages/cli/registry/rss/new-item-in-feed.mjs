// Hookline essentials: polls an RSS 2.0 or Atom feed on a timer and emits each item once (by its
// guid, id or link), oldest first. The feed is parsed here, with no dependency.
function decode(text) {
  return text
    .replace(/^<!\[CDATA\[([\s\S]*)\]\]>$/, "$1")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&amp;/g, "&")
    .trim();
}

function field(xml, tag) {
  const m = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, "i").exec(xml);
  return m ? decode(m[1]) : undefined;
}

function atomLink(xml) {
  const m = /<link\b[^>]*href="([^"]*)"[^>]*\/?>/i.exec(xml);
  return m ? decode(m[1]) : undefined;
}

export function parseFeed(xml) {
  const blocks = xml.match(/<item\b[\s\S]*?<\/item>/gi) ?? xml.match(/<entry\b[\s\S]*?<\/entry>/gi) ?? [];
  return blocks.map((block) => {
    const link = field(block, "link") || atomLink(block);
    const date = field(block, "pubDate") ?? field(block, "published") ?? field(block, "updated");
    const item = {
      title: field(block, "title"),
      link,
      id: field(block, "guid") ?? field(block, "id") ?? link,
      description: field(block, "description") ?? field(block, "summary") ?? field(block, "content"),
      date,
    };
    for (const key of Object.keys(item)) if (item[key] === undefined) delete item[key];
    return item;
  });
}

export default {
  key: "rss-new-item-in-feed",
  name: "New Item in Feed",
  description: "Emit each new item of an RSS or Atom feed, checked on a schedule.",
  version: "0.1.0",
  type: "source",
  dedupe: "unique",
  props: {
    rss: { type: "app", app: "rss" },
    url: { type: "string", label: "Feed URL", description: "The URL of an RSS 2.0 or Atom feed." },
    timer: {
      type: "$.interface.timer",
      label: "Check every",
      description: "How often the feed is read.",
      default: { intervalSeconds: 900 },
    },
  },
  hooks: {
    async deploy() {
      await this.poll();
    },
  },
  methods: {
    async poll() {
      const res = await fetch(this.url, {
        headers: { accept: "application/rss+xml, application/atom+xml, */*" },
      });
      if (!res.ok) throw new Error(`Fetching ${this.url} answered ${res.status}`);
      const items = parseFeed(await res.text()).filter((item) => item.id);
      // Feeds list the newest first: emit the oldest first.
      for (const item of items.reverse()) {
        const ts = item.date ? Date.parse(item.date) : Number.NaN;
        this.$emit(item, {
          id: item.id,
          summary: item.title ?? item.id,
          ...(Number.isNaN(ts) ? {} : { ts }),
        });
      }
    },
  },
  async run() {
    await this.poll();
  },
};
