// The embedded catalogue, imported by relative path so the bundler keeps it a Text module of its own (an alias
// straight to the .txt would inline it into the script as a string literal, which V8 then parses as source).
// wrangler.toml aliases `catalog-data` here; `npm run serve` and the bench alias it to a copy of this file next to
// their own catalog.txt.
export { default } from '../../catalog/catalog.txt';
