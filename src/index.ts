import catalogText from 'catalog-data';
export default {
  async fetch(): Promise<Response> {
    const c = JSON.parse(catalogText) as { tools: unknown[] };
    return new Response(`tools: ${c.tools.length}`);
  },
};
