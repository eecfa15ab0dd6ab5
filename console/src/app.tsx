/** The console's frame: the navigation and the pages under `/console/`. */
import { LocationProvider, Route, Router } from 'preact-iso';
import { Overview } from './pages/overview.js';

/** The console, routed under `/console`. */
export function App() {
  return (
    <LocationProvider scope="/console">
      <header class="masthead">
        <span class="brand">Tariff</span>
        <nav aria-label="Console">
          <a href="/console/">Overview</a>
        </nav>
      </header>
      <main>
        <Router>
          <Route path="/console/" component={Overview} />
          <Route path="/console" component={Overview} />
          <Route default component={NotFound} />
        </Router>
      </main>
    </LocationProvider>
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
