import { render } from 'preact';
import { App } from './app.js';
import './styles.css';

// The service strips a leading /v1 from every path (contract §1), so /v1/console/... serves this
// application too: its pages live under /console/, so drop the prefix before routing.
if (window.location.pathname.startsWith('/v1/console')) {
  const { pathname, search, hash } = window.location;
  window.history.replaceState(window.history.state, '', `${pathname.slice('/v1'.length)}${search}${hash}`);
}

const root = document.getElementById('app');
if (root) render(<App />, root);
