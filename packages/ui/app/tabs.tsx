/** Accessible tabs (WAI-ARIA tabs pattern: arrow keys, Home and End move between tabs). */
import type { ComponentChildren } from "preact";
import { useRef } from "preact/hooks";

/** One tab. */
export interface TabSpec {
  id: string;
  label: string;
}

/** A tab list; the selected tab's panel is `children`. */
export function Tabs({
  tabs,
  selected,
  onSelect,
  label,
  children,
}: {
  tabs: TabSpec[];
  selected: string;
  onSelect: (id: string) => void;
  label: string;
  children: ComponentChildren;
}) {
  const list = useRef<HTMLDivElement>(null);
  const move = (to: number) => {
    const tab = tabs[(to + tabs.length) % tabs.length] as TabSpec;
    onSelect(tab.id);
    list.current?.querySelector<HTMLElement>(`#tab-${tab.id}`)?.focus();
  };
  const index = tabs.findIndex((t) => t.id === selected);
  return (
    <>
      <div
        class="tabs"
        role="tablist"
        aria-label={label}
        ref={list}
        onKeyDown={(e) => {
          if (e.key === "ArrowRight") move(index + 1);
          else if (e.key === "ArrowLeft") move(index - 1);
          else if (e.key === "Home") move(0);
          else if (e.key === "End") move(tabs.length - 1);
          else return;
          e.preventDefault();
        }}
      >
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={t.id === selected}
            aria-controls={`panel-${t.id}`}
            tabIndex={t.id === selected ? 0 : -1}
            onClick={() => onSelect(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${selected}`} aria-labelledby={`tab-${selected}`} class="tabpanel">
        {children}
      </div>
    </>
  );
}
