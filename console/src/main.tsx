/** The console's entry: the app into `#app`. */
import { render } from 'preact';
import { App } from './app.js';

render(<App />, document.getElementById('app') as HTMLElement);
