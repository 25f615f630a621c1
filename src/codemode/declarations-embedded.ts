// The embedded code-mode declarations, imported by relative path so the bundler keeps them a Text module of their
// own (as src/catalogue/embedded-catalogue.ts does for the catalogue). wrangler.toml aliases `declarations-data` here.
export { default } from '../../catalog/declarations.txt';
