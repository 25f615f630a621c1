// Vite's ?raw imports (a file's text as a string), used by tests that read the repo's docs.
declare module '*.md?raw' {
  const text: string;
  export default text;
}
