/**
 * Prop descriptions as Markdown (SPEC: "Markdown supported"), safely: `marked`'s lexer turns the
 * text into tokens and this renders them as Preact elements, so no HTML string ever reaches the
 * DOM. Raw HTML in the text is shown as text; links open in a new tab without a referrer, and only
 * http(s) and mailto links become links.
 */

import { Lexer, type Token, type Tokens } from "marked";
import type { ComponentChildren } from "preact";

const SAFE_HREF = /^(https?:|mailto:)/i;

function inline(tokens: Token[] | undefined, key = ""): ComponentChildren[] {
  return (tokens ?? []).map((t, i) => render(t, `${key}${i}`));
}

function render(t: Token, key: string): ComponentChildren {
  switch (t.type) {
    case "paragraph":
      return <p key={key}>{inline((t as Tokens.Paragraph).tokens, key)}</p>;
    case "text": {
      const text = t as Tokens.Text;
      return text.tokens ? inline(text.tokens, key) : text.text;
    }
    case "strong":
      return <strong key={key}>{inline((t as Tokens.Strong).tokens, key)}</strong>;
    case "em":
      return <em key={key}>{inline((t as Tokens.Em).tokens, key)}</em>;
    case "del":
      return <del key={key}>{inline((t as Tokens.Del).tokens, key)}</del>;
    case "codespan":
      return <code key={key}>{(t as Tokens.Codespan).text}</code>;
    case "code":
      return (
        <pre key={key}>
          <code>{(t as Tokens.Code).text}</code>
        </pre>
      );
    case "br":
      return <br key={key} />;
    case "link": {
      const link = t as Tokens.Link;
      if (!SAFE_HREF.test(link.href)) return <>{inline(link.tokens, key)}</>;
      return (
        <a key={key} href={link.href} target="_blank" rel="noopener noreferrer">
          {inline(link.tokens, key)}
        </a>
      );
    }
    case "list": {
      const list = t as Tokens.List;
      const items = list.items.map((item, i) => (
        <li key={`${key}-${i}`}>{inline(item.tokens, `${key}-${i}-`)}</li>
      ));
      return list.ordered ? <ol key={key}>{items}</ol> : <ul key={key}>{items}</ul>;
    }
    case "heading":
      // A heading inside a field's description is only emphasis.
      return (
        <p key={key}>
          <strong>{inline((t as Tokens.Heading).tokens, key)}</strong>
        </p>
      );
    case "blockquote":
      return <blockquote key={key}>{inline((t as Tokens.Blockquote).tokens, key)}</blockquote>;
    case "escape":
      return (t as Tokens.Escape).text;
    case "space":
    case "hr":
      return null;
    default:
      // html, image, table and anything else: the text as written, never markup.
      return (t as { raw?: string }).raw ?? "";
  }
}

/** Renders `text` as Markdown: paragraphs, emphasis, code, links (new tab), lists. */
export function Markdown({ text }: { text: string }) {
  let tokens: Token[];
  try {
    tokens = Lexer.lex(text, { gfm: true });
  } catch {
    return <>{text}</>;
  }
  return <>{tokens.map((t, i) => render(t, String(i)))}</>;
}
