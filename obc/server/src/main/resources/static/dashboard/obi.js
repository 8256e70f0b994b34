// Per-OBI view: the merged graph drawn with provenance colours, merged and fused blocks
// marked, the merge report, live counters of every block (GET /api/obis/{dpid}/counters) and
// the hit counts of every classifier rule of the applications running there, labelled with
// the rule's match (GET /api/apps/{name}/rules?dpid=N). Polled only while shown.

import {h, num, appColour} from './dom.js';
import {get} from './api.js';
import {drawGraph, showCounters} from './graph.js';

export class ObiView {
  constructor(root) {
    this.root = root;
    this.dpid = null;
    this.view = null;
    this.svg = null;
    this.prevHits = new Map();
  }

  /** Shows OBI `dpid` (its graph is fetched again when it changed). */
  async show(dpid, obis) {
    const changed = dpid !== this.dpid;
    this.dpid = dpid;
    const picker = h('select', {id: 'obi-picker', onchange: e => { location.hash = '#obi/' + e.target.value; }},
        (obis ?? []).map(o => h('option', {value: o.dpid, selected: o.dpid === dpid, text: 'OBI ' + o.dpid + ' (' + o.state + ')'})));
    if (dpid == null) {
      this.root.replaceChildren(h('p', {text: 'No OBI has connected yet.'}));
      return;
    }
    const view = await get('/api/obis/' + dpid + '/graph');
    if (!view) {
      this.root.replaceChildren(h('div', {class: 'toolbar'}, picker), h('p', {text: 'OBI ' + dpid + ' is unknown.'}));
      return;
    }
    const same = !changed && this.view && JSON.stringify(this.view.graph) === JSON.stringify(view.graph);
    this.view = view;
    const choices = JSON.stringify((obis ?? []).map(o => [o.dpid, o.state]));
    if (same && this.svg) {
      // the picker is replaced only when the OBIs changed: an open drop-down stays open
      if (choices !== this.choices) this.root.querySelector('#obi-picker')?.replaceWith(picker);
      this.choices = choices;
      return;
    }
    this.choices = choices;
    this.svg = drawGraph(view);
    const legend = h('div', {class: 'legend'}, (view.apps ?? []).map(a => h('span', {class: 'app-key'},
        h('i', {style: 'background:' + appColour(a)}), a)),
        h('span', {class: 'app-key'}, h('i', {class: 'shared-key'}), 'merged block (⊕ application blocks)'),
        h('span', {class: 'app-key'}, h('i', {class: 'fused-key'}), 'classifies for others (fused)'));
    const report = h('details', {class: 'report'}, h('summary', {text: 'merge report'
        + (view.composition ? ' · composition ' + view.composition : '')}), h('pre', {text: view.report ?? ''}),
        view.failure ? h('div', {class: 'error', text: view.failure}) : null);
    this.root.replaceChildren(
        h('div', {class: 'toolbar'}, picker, h('span', {text: (view.graph?.blocks?.length ?? 0) + ' blocks · '
            + (view.apps ?? []).join(' → ')})),
        legend,
        h('div', {class: 'graph-wrap', id: 'graph'}, this.svg),
        report,
        h('h3', {text: 'Rule hits on this OBI'}),
        h('div', {id: 'rules'}));
    this.prevHits.clear();
  }

  /** Reads the counters and rule hits again. */
  async poll() {
    if (this.dpid == null || !this.view || !this.svg) return;
    const dpid = this.dpid;
    const [counters, ...rules] = await Promise.all([get('/api/obis/' + dpid + '/counters'),
      ...(this.view.apps ?? []).filter(a => !a.startsWith('(')).map(a => get('/api/apps/' + encodeURIComponent(a) + '/rules?dpid=' + dpid)
          .then(r => ({app: a, blocks: r ?? []})))]);
    if (dpid !== this.dpid) return;
    if (counters) showCounters(this.svg, counters);
    this.renderRules(rules);
  }

  renderRules(perApp) {
    const el = this.root.querySelector('#rules');
    if (!el) return;
    const rows = [];
    const now = Date.now();
    for (const {app, blocks} of perApp) {
      for (const b of blocks) {
        for (const r of b.rules) {
          const key = app + '/' + b.block + '/' + r.index;
          const prev = this.prevHits.get(key);
          const rate = prev && r.hits != null && now > prev.t ? (r.hits - prev.hits) / ((now - prev.t) / 1000) : null;
          this.prevHits.set(key, {t: now, hits: r.hits});
          rows.push(h('tr', {'data-app': app, 'data-block': b.block, 'data-rule': r.index},
              h('td', {}, h('i', {class: 'dot', style: 'background:' + appColour(app)}), app),
              h('td', {text: b.block}), h('td', {class: 'num', text: r.index}),
              h('td', {class: 'label', text: r.label, title: JSON.stringify(r.match)}),
              h('td', {class: 'num hits', text: r.hits == null ? '–' : String(r.hits)}),
              h('td', {class: 'num', text: rate == null ? '' : num(Math.max(0, rate)) + '/s'})));
        }
      }
    }
    el.replaceChildren(rows.length ? h('table', {class: 'rules'},
        h('thead', {}, h('tr', {}, ['application', 'block', '#', 'rule', 'hits', 'rate'].map(t => h('th', {text: t})))),
        h('tbody', {}, rows)) : h('p', {text: 'No classifier rules here.'}));
  }
}
