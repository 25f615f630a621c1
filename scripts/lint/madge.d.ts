// The part of madge's JavaScript API that scripts/lint/structure.ts uses (madge ships no types).
declare module 'madge' {
  interface MadgeConfig {
    baseDir?: string;
    fileExtensions?: string[];
    tsConfig?: string | object;
    excludeRegExp?: RegExp[];
    detectiveOptions?: Record<string, Record<string, boolean>>;
  }
  interface MadgeResult {
    obj(): Record<string, string[]>;
    circular(): string[][];
    warnings(): { skipped: string[] };
  }
  function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
  export default madge;
}
