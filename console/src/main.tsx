/**
 * The console's entry: takes a `#token=…` fragment (then removes it from the URL) and renders the
 * page into #app.
 */
import { render } from 'preact';
import { App } from './app.js';
import { takeTokenFromUrl } from './token.js';
import './style.css';

takeTokenFromUrl();
const root = document.getElementById('app');
if (root) render(<App />, root);
