// Topology view: the topology file's segments (nested), each with its OBIs as cards: state,
// uptime, load, packets / bytes / drops with their rates (from successive GET
// /api/obis/{dpid}/stats answers) and a chart of the last minutes. OBIs outside every
// segment are listed under "no segment".

import {h, num, duration} from './dom.js';
import {get} from './api.js';
import {lineChart} from './chart.js';

const KEEP = 150;   // samples per OBI (5 minutes at one per 2 s)

export class TopologyView {
  constructor(root, onSelect) {
    this.root = root;
    this.onSelect = onSelect;
    this.history = new Map();   // dpid -> [{t, ...stats}]
    this.metric = 'packets';
    this.obis = [];
    this.topology = {segments: []};
  }

  /** Polls the OBIs and the stats of those that are up. */
  async poll() {
    const [obis, topo] = await Promise.all([get('/api/obis'), get('/api/topology')]);
    if (!obis) return;
    this.obis = obis;
    this.topology = topo ?? {segments: []};
    await Promise.all(obis.filter(o => o.state === 'UP').map(async o => {
      const st = await get('/api/obis/' + o.dpid + '/stats');
      if (!st) return;
      const list = this.history.get(o.dpid) ?? [];
      // a restarted OBI starts its counters again: its history too
      if (list.length && (st.uptime < list[list.length - 1].uptime)) list.length = 0;
      list.push({t: Date.now(), ...st});
      if (list.length > KEEP) list.splice(0, list.length - KEEP);
      this.history.set(o.dpid, list);
    }));
  }

  /** Per second between the last two samples. */
  rate(dpid, key) {
    const l = this.history.get(dpid) ?? [];
    if (l.length < 2) return null;
    const a = l[l.length - 2], b = l[l.length - 1];
    const dt = (b.t - a.t) / 1000;
    return dt > 0 ? Math.max(0, (b[key] - a[key]) / dt) : null;
  }

  render() {
    const byDpid = new Map(this.obis.map(o => [o.dpid, o]));
    const placed = new Set();
    const section = (seg, depth) => {
      const cards = (seg.obis ?? []).map(d => {
        placed.add(d);
        return this.card(byDpid.get(d), d);
      });
      return h('section', {class: 'segment depth-' + Math.min(depth, 3), 'data-segment': seg.name},
          h('h3', {text: 'segment ' + seg.name}),
          h('div', {class: 'cards'}, cards),
          (depth < 16 ? (seg.segments ?? []) : []).map(c => section(c, depth + 1)));
    };
    const sections = (this.topology.segments ?? []).map(seg => section(seg, 0));
    const rest = this.obis.filter(o => !placed.has(o.dpid));
    if (rest.length) {
      sections.push(h('section', {class: 'segment depth-0', 'data-segment': ''},
          h('h3', {text: this.topology.segments?.length ? 'no segment' : 'network (no topology file)'}),
          h('div', {class: 'cards'}, rest.map(o => this.card(o, o.dpid)))));
    }
    const picker = h('select', {id: 'chart-metric', onchange: e => { this.metric = e.target.value; this.render(); }},
        ['packets', 'bytes', 'drops'].map(m => h('option', {value: m, text: m, selected: m === this.metric})));
    this.root.replaceChildren(h('div', {class: 'toolbar'}, h('label', {text: 'chart '}, picker)), ...sections);
  }

  card(o, dpid) {
    if (!o) {
      return h('div', {class: 'card obi DOWN', 'data-dpid': dpid},
          h('div', {class: 'title'}, h('b', {text: 'OBI ' + dpid}), h('span', {class: 'badge DOWN', text: 'never seen'})));
    }
    const l = this.history.get(o.dpid) ?? [];
    const st = l.length ? l[l.length - 1] : null;
    const up = o.state === 'UP';
    const line = (label, key, unit) => h('tr', {},
        h('th', {text: label}),
        h('td', {class: 'v', 'data-stat': key, text: st ? num(st[key]) : '–'}),
        h('td', {class: 'r', text: st && this.rate(o.dpid, key) != null ? num(this.rate(o.dpid, key)) + ' ' + unit + '/s' : ''}));
    const series = {
      packets: [['in', 'packets_in', '#4e79a7'], ['out', 'packets_out', '#59a14f'], ['dropped', 'packets_dropped', '#e15759']],
      bytes: [['in', 'bytes_in', '#4e79a7'], ['out', 'bytes_out', '#59a14f']],
      drops: [['dropped', 'packets_dropped', '#e15759'], ['events dropped', 'events_dropped', '#b07aa1']],
    }[this.metric];
    const chart = lineChart(series.map(([name, key, colour]) => ({name, colour,
      points: l.map(x => [x.t, Number(x[key]) || 0])})), {label: this.metric + ' of OBI ' + o.dpid});
    return h('div', {class: 'card obi ' + o.state, 'data-dpid': o.dpid},
        h('div', {class: 'title'},
            h('a', {href: '#obi/' + o.dpid, text: 'OBI ' + o.dpid, onclick: () => this.onSelect(o.dpid)}),
            h('span', {class: 'badge ' + o.state, text: o.state})),
        h('div', {class: 'meta'}, h('span', {text: o.endpoint ?? ''}),
            h('span', {text: up && st ? 'up ' + duration(st.uptime) : 'since ' + (o.stateSince ?? '')}),
            h('span', {text: st ? 'load ' + (st.current_load ?? 0).toFixed(2) : ''})),
        h('div', {class: 'meta'}, h('span', {text: (o.apps ?? []).join(' → ') || 'no application'}),
            h('span', {text: o.graphStatus ?? ''})),
        up ? h('table', {class: 'stats'}, line('packets in', 'packets_in', 'pkts'),
            line('packets out', 'packets_out', 'pkts'), line('dropped', 'packets_dropped', 'pkts'),
            line('bytes in', 'bytes_in', 'B'), line('bytes out', 'bytes_out', 'B')) : null,
        up ? chart : null,
        o.lastError ? h('div', {class: 'error', text: o.lastError}) : null);
  }
}
