// Kept equal to package.json's version (a test checks it); the worker cannot read package.json at run time.
export const VERSION = '0.1.0';
export const SERVER_NAME = 'mcp-catalogue';
