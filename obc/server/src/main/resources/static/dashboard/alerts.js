// Alert view: filters (application, OBI, lowest severity, block, message text, the
// application's rule, time range) applied by the controller (GET /api/alerts), newest first,
// and a live stream of new alerts that pass the same filters (Server-Sent Events, GET
// /api/alerts/stream), opened again whenever the filters change. The stream's events carry
// ids, so when the EventSource reconnects on its own the controller replays what it missed.
// A rule in the table is a link that filters by it.

import {h, appColour} from './dom.js';
import {get} from './api.js';

const MAX_ROWS = 500;

export class AlertsView {
  constructor(root) {
    this.root = root;
    this.rows = [];
    this.source = null;
    this.built = false;
  }

  build(apps, obis) {
    const opt = (v, t) => h('option', {value: v, text: t});
    const appSel = h('select', {id: 'f-app', name: 'app'}, opt('', 'any application'),
        apps.map(a => opt(a.name, a.name)), opt('(none)', '(no application)'));
    const obiSel = h('select', {id: 'f-dpid', name: 'dpid'}, opt('', 'any OBI'), obis.map(o => opt(o.dpid, 'OBI ' + o.dpid)));
    const sev = h('select', {id: 'f-sev', name: 'minSeverity'}, opt('', 'any severity'),
        [1, 2, 3, 4, 5].map(n => opt(n, 'severity ≥ ' + n)));
    this.form = h('form', {id: 'alert-filters', class: 'filters', onsubmit: e => { e.preventDefault(); this.apply(); }},
        appSel, obiSel, sev,
        h('input', {id: 'f-block', name: 'block', placeholder: 'block', size: 12}),
        h('input', {id: 'f-text', name: 'text', placeholder: 'message contains', size: 16}),
        h('input', {id: 'f-rule', name: 'rule', placeholder: 'rule / sid', size: 9, inputmode: 'numeric',
          pattern: '[0-9]+', title: 'the application\'s rule: Snort sid or firewall rule number'}),
        h('label', {text: 'from '}, h('input', {id: 'f-since', name: 'since', type: 'datetime-local', step: 1})),
        h('label', {text: 'to '}, h('input', {id: 'f-until', name: 'until', type: 'datetime-local', step: 1})),
        h('button', {type: 'submit', id: 'f-apply', text: 'apply'}),
        h('label', {}, h('input', {id: 'f-live', type: 'checkbox', checked: true, onchange: () => this.apply()}), ' live'));
    this.count = h('span', {id: 'alert-count'});
    this.live = h('span', {id: 'live-state'});
    this.body = h('tbody');
    this.root.replaceChildren(this.form, h('div', {class: 'toolbar'}, this.count, this.live),
        h('table', {class: 'alerts', id: 'alerts'}, h('thead', {}, h('tr', {},
            ['time', 'application', 'OBI', 'block', 'severity', 'message', 'rule', 'flow']
              .map(t => h('th', {text: t})))), this.body));
    this.built = true;
  }

  /** Keeps the application and OBI choices current without losing what is selected. */
  refreshChoices(apps, obis) {
    if (!this.built) return;
    const sync = (sel, values, label) => {
      const have = new Set([...sel.options].map(o => o.value));
      for (const v of values) {
        if (!have.has(String(v))) sel.insertBefore(h('option', {value: v, text: label(v)}), sel.lastChild);
      }
    };
    sync(this.form.querySelector('#f-app'), apps.map(a => a.name), v => v);
    const obiSel = this.form.querySelector('#f-dpid');
    for (const o of obis) {
      if (![...obiSel.options].some(x => x.value === String(o.dpid))) obiSel.append(h('option', {value: o.dpid, text: 'OBI ' + o.dpid}));
    }
  }

  query() {
    const p = new URLSearchParams();
    for (const name of ['app', 'dpid', 'minSeverity', 'block', 'text', 'rule']) {
      const v = this.form.elements[name].value.trim();
      if (v) p.set(name, v);
    }
    for (const name of ['since', 'until']) {
      const v = this.form.elements[name].value;
      if (v) p.set(name, new Date(v).toISOString());
    }
    return p;
  }

  async apply() {
    const p = this.query();
    this.stop();
    const list = await get('/api/alerts?limit=' + MAX_ROWS + '&' + p);
    this.rows = (list ?? []).slice().reverse();
    this.render();
    if (this.form.querySelector('#f-live').checked && !p.has('until')) {
      this.source = new EventSource('/api/alerts/stream?' + p, {withCredentials: true});
      this.source.addEventListener('alert', e => {
        this.rows.unshift(JSON.parse(e.data));
        if (this.rows.length > MAX_ROWS) this.rows.length = MAX_ROWS;
        this.render();
      });
      this.source.onopen = () => { this.live.textContent = '· live'; };
      this.source.onerror = () => { this.live.textContent = '· live stream reconnecting'; };
    } else {
      this.live.textContent = '';
    }
  }

  stop() {
    if (this.source) {
      this.source.close();
      this.source = null;
    }
  }

  render() {
    this.count.textContent = this.rows.length + ' alert(s), newest first';
    this.body.replaceChildren(...this.rows.map(e => h('tr', {'data-app': e.app ?? '(none)', 'data-dpid': e.dpid,
      'data-severity': e.severity, 'data-rule': e.rule?.id},
        h('td', {text: e.time}),
        h('td', {}, e.app ? h('i', {class: 'dot', style: 'background:' + appColour(e.app)}) : null, e.app ?? '(none)'),
        h('td', {class: 'num', text: e.dpid}), h('td', {text: e.block ?? e.mergedBlock}),
        h('td', {class: 'num sev-' + e.severity, text: e.severity}), h('td', {text: e.message}),
        h('td', {}, e.rule ? h('a', {href: '#', class: 'rule', title: 'show only the alerts of this rule',
          text: ruleText(e.rule), onclick: ev => { ev.preventDefault(); this.filterRule(e.rule.id); }}) : null),
        h('td', {text: flowText(e.headers || {})}))));
  }

  /** Shows only the alerts of rule {@code id} (the other filters stay). */
  filterRule(id) {
    this.form.elements.rule.value = id;
    this.apply();
  }
}

const PROTO = {1: 'ICMP', 6: 'TCP', 17: 'UDP', 58: 'ICMPv6', 132: 'SCTP'};

// "sid 1000002:1" (a rule with a revision) or "rule 10", with where it was written.
function ruleText(r) {
  return r ? (r.rev ? 'sid ' + r.id + ':' + r.rev : 'rule ' + r.id) + (r.origin ? ' (' + r.origin + ')' : '') : '';
}

// "TCP 10.0.1.5:41000 -> 10.0.2.10:80" from the alert's packet headers ("L2 ..." without IP).
function flowText(p) {
  if (!p.srcIp) return p.ethSrc ? 'L2 ' + p.ethSrc + ' -> ' + p.ethDst : '';
  const port = n => n == null ? '' : ':' + n;
  const icmp = p.icmpType == null ? '' : ' type ' + p.icmpType + ' code ' + p.icmpCode;
  return (PROTO[p.ipProto] ?? p.ipProto) + ' ' + p.srcIp + port(p.srcPort) + ' -> ' + p.dstIp + port(p.dstPort) + icmp;
}
