// Worker entry: serves the catalogue embedded at build time (wrangler alias `catalog-data`).
import catalogText from 'catalog-data';
import { createApp } from './app.ts';
import { loadCatalogue } from './catalogue/load.ts';

export default createApp(loadCatalogue(catalogText));
