import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { useLocation } from "preact-iso";

export interface NavLink {
  href: string;
  label: string;
  /** Also current on paths below it (`/orders` for `/orders/…`). */
  prefix?: boolean;
}

interface ShellProps {
  /** The site's name, linking to its home. */
  brand: string;
  home: string;
  nav: readonly NavLink[];
  /** Drawn at the end of the header (the account, the cart's count). */
  aside?: ComponentChildren;
  children: ComponentChildren;
}

function isCurrent(link: NavLink, path: string): boolean {
  return path === link.href || (link.prefix === true && path.startsWith(`${link.href}/`));
}

/**
 * The frame of every page: a skip link, the header with the site's name and its navigation (the
 * current page marked), and the main region. After a navigation focus moves to the new page's
 * heading, so a keyboard or screen-reader user starts reading where the page changed.
 */
export function Shell({ brand, home, nav, aside, children }: ShellProps) {
  const { path } = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    // A page that loads its data first draws its heading once it has it: focus goes there then,
    // unless the person has moved the focus themselves meanwhile.
    const region = main.current;
    if (!region) return;
    const focused = document.activeElement;
    const focusHeading = (waited: boolean) => {
      const heading = region.querySelector("h1");
      if (!heading) return false;
      const now = document.activeElement;
      if (!waited || now === focused || now === document.body || now === null) {
        heading.setAttribute("tabindex", "-1");
        heading.focus();
      }
      return true;
    };
    if (focusHeading(false)) return;
    const watching = new MutationObserver(() => focusHeading(true) && watching.disconnect());
    watching.observe(region, { childList: true, subtree: true });
    return () => watching.disconnect();
  }, [path]);
  // What had the focus redrawn away (an action's button, replaced by what the action left: an
  // order's moves, a cancel's question): the focus goes to the page's heading, so the keyboard
  // goes on from there, not from the top of the document (found by a review).
  useEffect(() => {
    const region = main.current;
    if (!region) return;
    let focused: Element | null = null;
    const remember = (event: FocusEvent) => {
      focused = event.target as Element;
    };
    const watching = new MutationObserver(() => {
      if (!focused || focused.isConnected || (document.activeElement !== document.body && document.activeElement !== null)) return;
      focused = null;
      const heading = region.querySelector("h1");
      heading?.setAttribute("tabindex", "-1");
      // Where the page is scrolled stays: a mouse that removed the last line of a long cart is not sent to the top.
      heading?.focus({ preventScroll: true });
    });
    region.addEventListener("focusin", remember);
    watching.observe(region, { childList: true, subtree: true });
    return () => {
      region.removeEventListener("focusin", remember);
      watching.disconnect();
    };
  }, []);
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="site-header">
        <div class="site-header__inner">
          <a class="brand" href={home}>
            {brand}
          </a>
          <nav aria-label="Main">
            <ul class="nav">
              {nav.map((link) => (
                <li key={link.href}>
                  <a href={link.href} aria-current={isCurrent(link, path) ? "page" : undefined}>
                    {link.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          {aside && <div class="site-header__aside">{aside}</div>}
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
