// Layered layout of a directed graph (a processing graph: blocks and connectors), left to
// right: every node in the layer after its longest path from a source, edges that span
// several layers get invisible waypoints, and the order inside each layer is improved by a
// few barycentre sweeps to cut crossings. Edges closing a cycle (never in a valid graph)
// are drawn backwards instead of breaking the layering. Iterative throughout: the size of
// the graph bounds the work, nothing recurses.
//
//   layout(['a','b','c'], [{src:'a', dst:'b'}, {src:'a', dst:'c'}], {width: 150, height: 44})
//   -> {nodes: Map(name -> {x, y, layer}), edges: [{src, dst, points: [[x,y], ...]}], width, height}

const SWEEPS = 6;
const WAYPOINT = 14;   // vertical room of an edge passing through a layer

export function layout(names, links, opts = {}) {
  const w = opts.width ?? 150, hgt = opts.height ?? 44;
  const gapX = opts.gapX ?? 70, gapY = opts.gapY ?? 26;
  const index = new Map(names.map((n, i) => [n, i]));
  const edges = links.filter(e => index.has(e.src) && index.has(e.dst) && e.src !== e.dst);

  // topological order (Kahn); nodes left over sit on cycles: their remaining in-edges are back edges
  const out = names.map(() => []), indeg = names.map(() => 0);
  for (const e of edges) {
    out[index.get(e.src)].push(index.get(e.dst));
    indeg[index.get(e.dst)]++;
  }
  const order = [], queue = [], left = indeg.slice(), placed = names.map(() => false);
  names.forEach((_, i) => { if (left[i] === 0) queue.push(i); });
  while (order.length < names.length) {
    if (queue.length === 0) {
      // a cycle: take the unplaced node with the fewest remaining in-edges
      let best = -1;
      names.forEach((_, i) => { if (!placed[i] && (best < 0 || left[i] < left[best])) best = i; });
      queue.push(best);
      left[best] = 0;
    }
    const n = queue.shift();
    if (placed[n]) continue;
    placed[n] = true;
    order.push(n);
    for (const m of out[n]) if (!placed[m] && --left[m] === 0) queue.push(m);
  }
  const rank = new Array(names.length);
  order.forEach((n, i) => { rank[n] = i; });
  const forward = e => rank[index.get(e.src)] < rank[index.get(e.dst)];

  // layer = longest path from a source, over forward edges
  const layer = names.map(() => 0);
  for (const n of order) {
    for (const m of out[n]) if (rank[n] < rank[m]) layer[m] = Math.max(layer[m], layer[n] + 1);
  }

  // chains of waypoints for edges spanning layers
  const layers = [];
  const put = (id, l) => { (layers[l] ||= []).push(id); };
  names.forEach((_, i) => put(i, layer[i]));
  let nextId = names.length;
  const up = new Map(), down = new Map();   // id -> ids of neighbours in the previous / next layer
  const link = (a, b) => {
    (down.get(a) || down.set(a, []).get(a)).push(b);
    (up.get(b) || up.set(b, []).get(b)).push(a);
  };
  const routes = [];
  for (const e of edges) {
    const a = index.get(e.src), b = index.get(e.dst);
    const [from, to] = forward(e) ? [a, b] : [b, a];
    const chain = [from];
    for (let l = layer[from] + 1; l < layer[to]; l++) {
      const wp = nextId++;
      put(wp, l);
      layer[wp] = l;
      chain.push(wp);
    }
    chain.push(to);
    for (let i = 0; i + 1 < chain.length; i++) link(chain[i], chain[i + 1]);
    routes.push({edge: e, chain: forward(e) ? chain : chain.slice().reverse()});
  }

  // crossing reduction: barycentre of the neighbours' positions, down then up
  const pos = new Map();
  const number = l => layers[l].forEach((id, i) => pos.set(id, i));
  layers.forEach((_, l) => number(l));
  const bary = (id, nb) => {
    const ns = nb.get(id) || [];
    return ns.length ? ns.reduce((t, n) => t + pos.get(n), 0) / ns.length : pos.get(id);
  };
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    const downward = sweep % 2 === 0;
    const ls = downward ? layers.map((_, i) => i).slice(1) : layers.map((_, i) => i).reverse().slice(1);
    for (const l of ls) {
      const key = new Map(layers[l].map(id => [id, bary(id, downward ? up : down)]));
      layers[l].sort((p, q) => key.get(p) - key.get(q));
      number(l);
    }
  }

  // coordinates: columns by layer, each column centred vertically; a waypoint takes a thin slot
  const slot = id => id < names.length ? hgt + gapY : WAYPOINT;
  const heights = layers.map(ids => ids.reduce((t, id) => t + slot(id), 0));
  const tallest = Math.max(hgt + gapY, ...heights);
  const xy = new Map();
  layers.forEach((ids, l) => {
    let y = (tallest - heights[l]) / 2;
    for (const id of ids) {
      // a waypoint's y is the middle of its slot, shifted so that edges meet it at node height / 2
      xy.set(id, [l * (w + gapX), id < names.length ? y : y + WAYPOINT / 2 - hgt / 2]);
      y += slot(id);
    }
  });
  const nodes = new Map(names.map((n, i) => [n, {x: xy.get(i)[0], y: xy.get(i)[1], layer: layer[i]}]));
  const paths = routes.map(({edge, chain}) => ({
    ...edge,
    points: chain.map(id => [xy.get(id)[0], xy.get(id)[1]]),
  }));
  return {nodes, edges: paths, width: layers.length * (w + gapX) - gapX, height: tallest - gapY,
          nodeWidth: w, nodeHeight: hgt};
}
