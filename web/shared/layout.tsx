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
    const heading = main.current?.querySelector("h1");
    if (heading) {
      heading.setAttribute("tabindex", "-1");
      heading.focus();
    }
  }, [path]);
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
