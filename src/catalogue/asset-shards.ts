// Shards of a large catalogue as Workers static assets (wrangler.toml [assets], binding ASSETS): versioned with the
// code, free to read, and served offline by wrangler dev. run_worker_first keeps them off the public web; only this
// binding reads them.
import type { ShardSource } from './catalogue-text.ts';

export function assetShards(assets: Fetcher): ShardSource {
  return async (file) => {
    const res = await assets.fetch(new Request(`https://assets.local/${encodeURIComponent(file)}`));
    if (!res.ok) throw new Error(`HTTP ${res.status} from the ASSETS binding`);
    return res.text();
  };
}
