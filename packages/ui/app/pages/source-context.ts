/**
 * What the tabs of a source's page get. Its own module, so that the tab modules and `source.tsx`,
 * which imports them, do not import each other.
 */
import type { Component, Source } from "../types";

/** What the tabs get. */
export interface SourceContext {
  source: Source;
  component: Component | undefined;
  /** Replace the source after an update. */
  onSource: (source: Source) => void;
}
