// Draws an OBI's merged graph as SVG: blocks laid out by layout.js, each filled with the
// colour of the application it implements (stripes when it implements blocks of several),
// merged blocks (implementing more than one application block) with a thick outline and a
// badge, classifiers that classify for others (HeaderClassifier key "fuse") dashed with a
// dashed edge to each block they fuse, and each block's live counter ("count", "rate").

import {s, num, appColour} from './dom.js';
import {layout} from './layout.js';

const W = 158, H = 50;

/** Sum of a counter that is a number or one number per rule. */
export function total(v) {
  if (Array.isArray(v)) return v.reduce((t, x) => t + (Number(x) || 0), 0);
  return typeof v === 'number' ? v : null;
}

function short(text, max) {
  return text.length <= max ? text : text.substring(0, max - 1) + '…';
}

/** The SVG of graph view `view` (GET /api/obis/{dpid}/graph). */
export function drawGraph(view) {
  const blocks = view.graph?.blocks ?? [];
  const connectors = view.graph?.connectors ?? [];
  const prov = view.provenance ?? {};
  const fuse = [];
  for (const b of blocks) {
    for (const target of b.config?.fuse ?? []) fuse.push({src: b.name, dst: target});
  }
  // parallel connectors (several outputs of a classifier into one block) are drawn as one edge
  const pairs = new Map();
  for (const c of connectors) {
    const key = c.src + '\u0000' + c.dst;
    if (!pairs.has(key)) pairs.set(key, {src: c.src, dst: c.dst, ports: []});
    pairs.get(key).ports.push(c.src_port);
  }
  const lay = layout(blocks.map(b => b.name), [...pairs.values()], {width: W, height: H});
  const pad = 16;
  const svg = s('svg', {class: 'graph', width: lay.width + 2 * pad, height: lay.height + 2 * pad + 10,
    viewBox: `${-pad} ${-pad} ${lay.width + 2 * pad} ${lay.height + 2 * pad + 10}`, role: 'img',
    'aria-label': 'merged graph of OBI ' + view.dpid});
  const defs = s('defs', {},
      s('marker', {id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7,
        orient: 'auto-start-reverse'}, s('path', {d: 'M 0 0 L 10 5 L 0 10 z', fill: '#666'})));
  svg.append(defs);

  const edges = s('g', {class: 'edges'});
  for (const e of lay.edges) {
    const pts = e.points.map(([x, y], i) => [x + (i === 0 ? W : 0), y + H / 2]);
    pts[pts.length - 1][0] = e.points[e.points.length - 1][0];
    let d = `M ${pts[0][0]} ${pts[0][1]}`;
    for (let i = 1; i < pts.length; i++) {
      const [x0, y0] = pts[i - 1], [x1, y1] = pts[i];
      const mx = (x0 + x1) / 2;
      d += ` C ${mx} ${y0}, ${mx} ${y1}, ${x1} ${y1}`;
    }
    const ports = e.ports.length > 1 ? `outputs ${e.ports.join(', ')}` : `output ${e.ports[0]}`;
    edges.append(s('path', {class: 'edge', d, 'marker-end': 'url(#arrow)', 'data-src': e.src, 'data-dst': e.dst},
        s('title', {text: `${e.src} ${ports} -> ${e.dst}`})));
    if (e.ports.length > 1) {
      const [lx, ly] = pts[pts.length - 1];
      edges.append(s('text', {class: 'edge-count', x: lx - 8, y: ly - 5, 'text-anchor': 'end', text: '×' + e.ports.length}));
    }
  }
  for (const f of fuse) {
    const a = lay.nodes.get(f.src), b = lay.nodes.get(f.dst);
    if (!a || !b) continue;
    edges.append(s('path', {class: 'edge fused', d: `M ${a.x + W / 2} ${a.y + H} C ${a.x + W / 2} ${a.y + H + 40},`
        + ` ${b.x + W / 2} ${b.y + H + 40}, ${b.x + W / 2} ${b.y + H}`},
        s('title', {text: `${f.src} classifies for ${f.dst} (fused)`})));
  }
  svg.append(edges);

  const nodes = s('g', {class: 'blocks'});
  for (const b of blocks) {
    const p = lay.nodes.get(b.name);
    const origins = prov[b.name] ?? [];
    const apps = [...new Set(origins.map(o => o.app))];
    const shared = origins.length > 1;
    const fused = Array.isArray(b.config?.fuse) && b.config.fuse.length > 0;
    const g = s('g', {class: 'block' + (shared ? ' shared' : '') + (fused ? ' fused' : ''),
      transform: `translate(${p.x},${p.y})`, 'data-block': b.name, 'data-type': b.type, 'data-apps': apps.join(' ')});
    g.append(s('title', {text: `${b.name} (${b.type})\n`
        + (origins.length ? 'implements ' + origins.map(o => o.app + '.' + o.block).join(', ') : 'no application')
        + (fused ? '\nclassifies for ' + b.config.fuse.join(', ') : '')}));
    let fill = '#ccc';
    if (apps.length === 1) fill = appColour(apps[0]);
    else if (apps.length > 1) {
      const id = 'fill-' + apps.map(a => a.replace(/[^A-Za-z0-9_-]/g, '_')).join('-');
      if (!defs.querySelector('#' + CSS.escape(id))) {
        const grad = s('linearGradient', {id, x1: 0, y1: 0, x2: 1, y2: 0});
        apps.forEach((a, i) => {
          grad.append(s('stop', {offset: i / apps.length, 'stop-color': appColour(a)}),
              s('stop', {offset: (i + 1) / apps.length, 'stop-color': appColour(a)}));
        });
        defs.append(grad);
      }
      fill = `url(#${id})`;
    }
    g.append(s('rect', {width: W, height: H, rx: 6, fill, class: 'box'}));
    g.append(s('rect', {x: 3, y: 3, width: W - 6, height: H - 6, rx: 4, class: 'inner'}));
    g.append(s('text', {x: 8, y: 16, class: 'name', text: short(b.name, 22)}));
    g.append(s('text', {x: 8, y: 29, class: 'type', text: short(b.type, 24)}));
    g.append(s('text', {x: 8, y: 42, class: 'counter', text: ''}));
    if (shared) {
      g.append(s('g', {class: 'badge', transform: `translate(${W - 20},-8)`},
          s('circle', {r: 10, cx: 10, cy: 10}), s('text', {x: 10, y: 14, 'text-anchor': 'middle',
            text: '⊕' + origins.length})));
    }
    if (fused) {
      g.append(s('text', {x: W - 6, y: 29, 'text-anchor': 'end', class: 'fuse-tag', text: 'fuses ' + b.config.fuse.length}));
    }
    nodes.append(g);
  }
  svg.append(nodes);
  return svg;
}

/**
 * Writes counters into a drawn graph: per block its count and rate (summed over rules for
 * classifiers); returns the blocks whose count is above zero.
 */
export function showCounters(svg, counters) {
  let busy = 0;
  for (const g of svg.querySelectorAll('g.block')) {
    const c = counters?.blocks?.[g.dataset.block];
    const text = g.querySelector('text.counter');
    if (!c) { text.textContent = ''; continue; }
    if (c.error) { text.textContent = 'no answer'; text.classList.add('error'); continue; }
    const n = total(c.count), r = total(c.rate);
    text.classList.remove('error');
    text.textContent = n == null ? '' : num(n) + ' pkts' + (r == null ? '' : ' · ' + num(r) + '/s');
    g.dataset.count = n ?? '';
    if (n > 0) busy++;
  }
  return busy;
}
