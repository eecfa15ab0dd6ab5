/** The console's frame: the navigation and the pages under `/console/`. */
import { useEffect } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { SessionContext, useConsoleSession, useSession, type Session } from './session.js';
import { Fault } from './components/fault.js';
import { Login } from './pages/login/login.js';
import { Calculator } from './pages/calculator/calculator.js';
import { Groups } from './pages/groups/groups.js';
import { History } from './pages/history/history.js';
import { Overview } from './pages/overview/overview.js';
import { PriceList } from './pages/price-list/price-list.js';
import { Scripts } from './pages/scripts/scripts.js';
import { Services } from './pages/services/services.js';

/**
 * The pages in the navigation, each with the policy rules its API calls need (hidden unless all
 * allow). The calculator needs only `rating:quote`: without `rating:module_config` it asks for the
 * names it would read from the configuration (pages/calculator/quote-only.tsx).
 */
const PAGES = [
  { path: '/console/', label: 'Overview', rules: ['v2_rating:list_modules'] },
  { path: '/console/services', label: 'Services', rules: ['rating:module_config'] },
  { path: '/console/groups', label: 'Groups', rules: ['rating:module_config'] },
  { path: '/console/scripts', label: 'Scripts', rules: ['rating:module_config'] },
  { path: '/console/calculator', label: 'Price calculator', rules: ['rating:quote'] },
  { path: '/console/price-list', label: 'Price list', rules: ['rating:module_config'] },
] as const;

/**
 * The console: the pages once the session is known, the login form in Keystone mode when there is
 * no valid session (at first, after logging out, or when a call answers 401).
 */
export function App() {
  const { state, logIn } = useConsoleSession();
  if (state.status === 'login') return <Login onLogIn={logIn} notice={state.notice} />;
  if (state.status === 'ready') return <Console session={state.session} />;
  return (
    <main>
      <h1>Tariff</h1>
      {state.status === 'loading' ? <p aria-busy="true">Loading…</p> : <Fault message={state.message} />}
    </main>
  );
}

/** The console's pages for a session, routed under `/console`. */
function Console({ session }: { session: Session }) {
  return (
    <SessionContext.Provider value={session}>
      <LocationProvider scope="/console">
        <Masthead />
        <main>
          <Router>
            <Route path="/console/" component={Home} />
            <Route path="/console" component={Home} />
            <Route path="/console/services" component={Services} />
            <Route path="/console/groups" component={Groups} />
            <Route path="/console/scripts" component={Scripts} />
            <Route path="/console/calculator" component={Calculator} />
            <Route path="/console/price-list" component={PriceList} />
            <Route path="/console/history/:kind/:name" component={History} />
            <Route default component={NotFound} />
          </Router>
        </main>
      </LocationProvider>
    </SessionContext.Provider>
  );
}

/** The pages `session` may use, in the navigation's order. */
function allowedPages(session: Session) {
  return PAGES.filter((page) => page.rules.every((rule) => session.can(rule)));
}

/**
 * `/console/`: the overview, or for a user whose role does not allow it (a project member, who
 * may only quote) the first page they may use instead of a policy fault.
 */
function Home() {
  const session = useSession();
  const { route } = useLocation();
  const first = allowedPages(session)[0];
  const overviewAllowed = first?.path === '/console/';
  useEffect(() => {
    if (!overviewAllowed && first) route(first.path, true);
  }, [overviewAllowed, first, route]);
  if (overviewAllowed) return <Overview />;
  if (first) return null;
  return (
    <section>
      <h1>No page</h1>
      <p>Your role allows none of the console&apos;s pages: ask an administrator for a role that may quote or read the rating configuration.</p>
    </section>
  );
}

function Masthead() {
  const session = useSession();
  return (
    <header class="masthead">
      <span class="brand">Tariff</span>
      <nav aria-label="Console">
        {allowedPages(session).map((page) => (
          <a key={page.path} href={page.path}>
            {page.label}
          </a>
        ))}
      </nav>
      {session.user && (
        <span class="who">
          {session.user.name} · {session.user.project}{' '}
          <button type="button" onClick={() => void session.logout()}>
            Log out
          </button>
        </span>
      )}
    </header>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no such page in the console. <a href="/console/">Go to the overview.</a>
      </p>
    </section>
  );
}
