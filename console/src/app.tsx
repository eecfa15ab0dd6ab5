/** The console's frame: the navigation and the pages under `/console/`. */
import { LocationProvider, Route, Router } from 'preact-iso';
import { NOAUTH_SESSION, SessionContext, useSession, type Session } from './session.js';
import { Calculator } from './pages/calculator.js';
import { Groups } from './pages/groups.js';
import { History } from './pages/history.js';
import { Overview } from './pages/overview.js';
import { PriceList } from './pages/price-list.js';
import { Scripts } from './pages/scripts.js';
import { Services } from './pages/services.js';

/** The pages in the navigation, each with the policy rule its API calls need (hidden otherwise). */
const PAGES = [
  { path: '/console/', label: 'Overview', rule: 'v2_rating:list_modules' },
  { path: '/console/services', label: 'Services', rule: 'rating:module_config' },
  { path: '/console/groups', label: 'Groups', rule: 'rating:module_config' },
  { path: '/console/scripts', label: 'Scripts', rule: 'rating:module_config' },
  { path: '/console/calculator', label: 'Price calculator', rule: 'rating:quote' },
  { path: '/console/price-list', label: 'Price list', rule: 'rating:module_config' },
] as const;

/** The console, routed under `/console`. */
export function App({ session = NOAUTH_SESSION }: { session?: Session }) {
  return (
    <SessionContext.Provider value={session}>
      <LocationProvider scope="/console">
        <Masthead />
        <main>
          <Router>
            <Route path="/console/" component={Overview} />
            <Route path="/console" component={Overview} />
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

function Masthead() {
  const session = useSession();
  return (
    <header class="masthead">
      <span class="brand">Tariff</span>
      <nav aria-label="Console">
        {PAGES.filter((page) => session.can(page.rule)).map((page) => (
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
