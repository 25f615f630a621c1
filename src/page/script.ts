// The page's only script (inline, allowed by a CSP hash): search (ranked by the server), lazy schema rendering, copy
// buttons.
// Every catalogue string reaches the DOM through textContent, never innerHTML.
export const PAGE_SCRIPT = `(() => {
  const $ = (id) => document.getElementById(id);
  const q = $('q'), ts = $('ts'), list = $('tools'), count = $('count');
  const rows = Array.from(list.children);
  const byName = new Map(rows.map((r) => [r.querySelector('summary code').textContent, r]));
  // Ranked by the server's search (GET /catalogue/search), the same ranking as search_tools; the answer to the
  // latest input wins, and without a query every tool shows in catalogue order.
  let asked = 0;
  function show(names) {
    const set = ts.value;
    let n = 0;
    if (names) {
      const shown = new Set(names);
      rows.forEach((r) => { r.hidden = !shown.has(r); });
      names.forEach((r) => list.append(r));
      n = names.length;
    } else {
      rows.forEach((r) => {
        r.hidden = !!set && !(' ' + r.dataset.t + ' ').includes(' ' + set + ' ');
        list.append(r);
        if (!r.hidden) n++;
      });
    }
    count.textContent = n + ' of ' + rows.length + ' tools';
  }
  async function filter() {
    const query = q.value.trim();
    const mine = ++asked;
    if (!query) { show(null); return; }
    const params = new URLSearchParams({ q: query, limit: '50' });
    if (ts.value) params.set('toolset', ts.value);
    try {
      const res = await fetch('/catalogue/search?' + params);
      if (!res.ok) throw new Error('HTTP ' + res.status);
      const body = await res.json();
      if (mine === asked) show(body.results.map((h) => byName.get(h.name)).filter(Boolean));
    } catch (err) {
      if (mine === asked) count.textContent = 'Search failed: ' + err.message;
    }
  }
  let timer;
  q.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(filter, 120); });
  ts.addEventListener('change', filter);
  document.querySelectorAll('a[data-set]').forEach((a) => a.addEventListener('click', (e) => {
    e.preventDefault(); ts.value = a.dataset.set; q.value = ''; filter(); $('search').scrollIntoView();
  }));

  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = String(text);
    return e;
  };
  function typeOf(s) {
    if (s === true || s == null || typeof s !== 'object') return 'any';
    let t;
    if (s.type) t = [].concat(s.type).map((x) => (x === 'array' && s.items ? typeOf(s.items) + '[]' : x)).join(' | ');
    else if (s.$ref) t = '→ ' + String(s.$ref).replace(/^#\\/(\\$defs|definitions)\\//, '');
    else if (s.anyOf || s.oneOf) t = 'one of';
    else if (s.allOf) t = 'all of';
    else if (s.const !== undefined) t = 'const';
    else if (s.enum) t = 'enum';
    else t = 'any';
    if (s.format) t += ' (' + s.format + ')';
    return t;
  }
  function children(s) {
    if (!s || typeof s !== 'object') return null;
    if (s.properties) return s;
    if (s.items && typeof s.items === 'object' && (s.items.properties || s.items.anyOf || s.items.oneOf || s.items.allOf)) return children(s.items);
    if (s.anyOf || s.oneOf || s.allOf) return s;
    return null;
  }
  function renderSchema(s, depth) {
    const ul = el('ul', 'sch');
    if (depth > 8) { ul.append(el('li', 'muted', '… (nested deeper)')); return ul; }
    const req = new Set(Array.isArray(s.required) ? s.required : []);
    for (const [name, p] of Object.entries(s.properties || {})) {
      const li = el('li');
      li.append(el('code', 'pn', name));
      if (req.has(name)) li.append(el('span', 'req', 'required'));
      li.append(el('span', 'ty', typeOf(p)));
      if (p && typeof p === 'object') {
        if (p.description) li.append(el('div', 'desc', p.description));
        if (Array.isArray(p.enum)) li.append(el('div', 'enum', 'one of: ' + p.enum.map((v) => JSON.stringify(v)).join(', ')));
        if (p.default !== undefined) li.append(el('div', 'enum', 'default: ' + JSON.stringify(p.default)));
        const c = children(p);
        if (c) li.append(renderSchema(c, depth + 1));
      }
      ul.append(li);
    }
    for (const k of ['anyOf', 'oneOf', 'allOf']) {
      if (!Array.isArray(s[k])) continue;
      s[k].forEach((v, i) => {
        const li = el('li');
        li.append(el('span', 'ty', (k === 'allOf' ? 'and ' : 'variant ') + (i + 1) + ': ' + typeOf(v)));
        if (v && v.description) li.append(el('div', 'desc', v.description));
        const c = children(v);
        if (c) li.append(renderSchema(c, depth + 1));
        ul.append(li);
      });
    }
    if (depth === 0 && s.$defs) {
      for (const [name, d] of Object.entries(s.$defs)) {
        const li = el('li');
        li.append(el('code', 'pn', '$defs/' + name), el('span', 'ty', typeOf(d)));
        const c = children(d);
        if (c) li.append(renderSchema(c, depth + 1));
        ul.append(li);
      }
    }
    if (!ul.children.length) ul.append(el('li', 'muted', 'no properties'));
    return ul;
  }
  function block(title, schema) {
    const sec = el('section', 'schema');
    sec.append(el('h4', null, title));
    sec.append(renderSchema(schema, 0));
    const raw = el('details', 'raw');
    raw.append(el('summary', null, 'JSON'), el('pre', null, JSON.stringify(schema, null, 2)));
    sec.append(raw);
    return sec;
  }
  const nameOf = (d) => d.querySelector('summary code').textContent;
  async function load(d) {
    const body = d.querySelector('.body') || d.appendChild(el('div', 'body'));
    body.textContent = 'Loading…';
    try {
      const res = await fetch('/catalogue/tools/' + encodeURIComponent(nameOf(d)) + '.json');
      if (!res.ok) throw new Error('HTTP ' + res.status);
      const t = await res.json();
      body.textContent = '';
      body.append(el('p', 'http', t.http.method + ' ' + t.http.path));
      // descriptionHtml is the server's escaped Markdown subset (src/page/markdown.ts): no markup of the spec's own.
      const desc = el('div', 'tdesc');
      desc.innerHTML = t.descriptionHtml;
      body.append(desc);
      const o = el('p', 'out ' + (t.output.on ? 'on' : 'off'));
      o.append(el('b', null, 'outputSchema ' + (t.output.on ? 'on' : 'off') + ': '), document.createTextNode(t.output.reason));
      body.append(o);
      if (t.auth) body.append(el('p', 'auth', 'Upstream credential: ' + t.auth));
      if (t.result) {
        const r = el('div', 'res');
        r.append(el('b', null, 'Results: '), document.createTextNode(t.result.compaction === 'on' ? 'compacted, leaving out ' + t.result.drops.join('; ') + '.' : 'not compacted on this deployment.'));
        if (t.result.keeps.length) r.append(document.createTextNode(' Always kept: ' + t.result.keeps.join(', ') + '.'));
        if (t.result.shortens.length) r.append(document.createTextNode(' Nested API resources shortened to identifying fields: ' + t.result.shortens.join(', ') + '.'));
        r.append(document.createTextNode(' Projection argument: ' + t.result.projection + ' ("*" = full result).'));
        if (t.result.list) r.append(document.createTextNode(' ' + t.result.list.charAt(0).toUpperCase() + t.result.list.slice(1) + '; over the budget, whole items are returned with the call for the rest.'));
        if (t.result.paging) r.append(document.createTextNode(' Paging: ' + t.result.paging + '.'));
        body.append(r);
      }
      body.append(block('Input', t.inputSchema));
      if (t.outputSchema) body.append(block('Output (structuredContent)', t.outputSchema));
    } catch (err) {
      delete d.dataset.loaded;
      body.textContent = 'Could not load the schema: ' + err.message;
    }
  }
  list.addEventListener('toggle', (e) => {
    const d = e.target;
    if (d.tagName !== 'DETAILS' || !d.open || d.dataset.loaded) return;
    d.dataset.loaded = '1';
    load(d);
  }, true);

  document.querySelectorAll('button[data-copy]').forEach((b) => b.addEventListener('click', async () => {
    const pre = document.querySelector('pre[data-snippet="' + b.dataset.copy + '"]');
    try { await navigator.clipboard.writeText(pre.textContent); b.textContent = 'Copied'; }
    catch { const r = document.createRange(); r.selectNodeContents(pre); const s = getSelection(); s.removeAllRanges(); s.addRange(r); b.textContent = 'Selected'; }
    setTimeout(() => { b.textContent = 'Copy'; }, 1500);
  }));

  const hash = decodeURIComponent(location.hash.slice(1));
  if (hash) {
    const d = Array.from(list.querySelectorAll('details')).find((x) => nameOf(x) === hash);
    if (d) { d.open = true; d.scrollIntoView(); }
  }
  filter();
})();`;
