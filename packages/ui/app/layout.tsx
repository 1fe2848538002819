/** The frame of every signed-in page: skip link, navigation, sign out, and focus on navigation. */
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { useLocation } from "preact-iso";
import { setSessionKey } from "./api";

const NAV = [
  { href: "/sources", label: "Sources" },
  { href: "/webhooks", label: "Webhooks" },
  { href: "/workflows", label: "Workflows" },
  { href: "/accounts", label: "Accounts" },
  { href: "/data-stores", label: "Data stores" },
  { href: "/settings/env", label: "Environment" },
  { href: "/oauth-clients", label: "OAuth clients" },
];

/** Header, navigation and the main region. */
export function Layout({ children, onSignOut }: { children: ComponentChildren; onSignOut: () => void }) {
  const { path } = useLocation();
  const first = useRef(true);
  // After a navigation, move focus to the new page's heading so screen readers announce it.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    let tries = 0;
    const focus = () => {
      const h1 = document.querySelector<HTMLElement>("main h1");
      if (h1) {
        if (!h1.hasAttribute("tabindex")) h1.setAttribute("tabindex", "-1");
        h1.focus({ preventScroll: false });
      } else if (tries++ < 20) setTimeout(focus, 50);
    };
    focus();
  }, [path]);

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/sources">
          Hookline
        </a>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.href}>
                <a
                  href={item.href}
                  aria-current={path === item.href || path.startsWith(`${item.href}/`) ? "page" : undefined}
                >
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button
          type="button"
          class="link-button sign-out"
          onClick={() => {
            setSessionKey(null);
            onSignOut();
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
