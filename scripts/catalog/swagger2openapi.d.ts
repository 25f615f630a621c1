// swagger2openapi ships no types; we only use convertObj.
declare module 'swagger2openapi';
