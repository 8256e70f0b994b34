// Applications view: each application's state (running, stopped, refused, failed and why,
// failed or excluded on which OBIs), failure mode and what its traffic gets now, start /
// stop / reload for operators (viewers see no buttons; the API refuses them with 403
// anyway), and for the application picked its own alerts and its rules' hit counts
// summed over the OBIs.

import {h, appColour} from './dom.js';
import {get, post} from './api.js';

export class AppsView {
  constructor(root, isOperator) {
    this.root = root;
    this.isOperator = isOperator;
    this.selected = null;
    this.message = '';
  }

  async poll() {
    const [apps, obis] = await Promise.all([get('/api/apps'), get('/api/obis')]);
    if (!apps) return;
    this.apps = apps;
    this.obis = obis ?? [];
    if (this.selected) {
      const name = encodeURIComponent(this.selected);
      [this.alerts, this.rules] = await Promise.all([get('/api/alerts?limit=20&app=' + name),
        get('/api/apps/' + name + '/rules')]);
    }
  }

  async act(name, verb) {
    const r = await post('/api/apps/' + encodeURIComponent(name) + '/' + verb);
    this.message = verb + ' ' + name + ': ' + (r.body.message || r.body.error || (r.status === 200 ? 'done' : r.status));
    await this.poll();
    this.render();
  }

  render() {
    if (!this.apps) return;
    // drawn again only when something changed: a button being clicked is not replaced under the pointer
    const key = JSON.stringify([this.apps, this.obis.map(o => [o.dpid, o.excludedApps]), this.selected, this.message,
      this.selected ? [this.alerts, this.rules] : null, this.isOperator()]);
    if (key === this.drawn) return;
    this.drawn = key;
    const excluded = name => this.obis.filter(o => (o.excludedApps ?? []).includes(name)).map(o => o.dpid);
    const rows = this.apps.map(a => {
      const failedOn = Object.entries(a.failedOn ?? {});
      const ex = excluded(a.name);
      const buttons = h('td', {class: 'actions'});
      if (this.isOperator() && a.state !== 'REFUSED') {
        // FAILED on some OBIs only: it runs elsewhere, so it can be stopped
        const runs = a.state === 'RUNNING' || (a.action || '').startsWith('runs');
        buttons.append(h('button', {class: runs ? 'stop' : 'start', 'data-action': runs ? 'stop' : 'start',
          onclick: () => this.act(a.name, runs ? 'stop' : 'start'), text: runs ? 'stop' : 'start'}), ' ',
        h('button', {'data-action': 'reload', onclick: () => this.act(a.name, 'reload'), text: 'reload'}));
      }
      return h('tr', {'data-app': a.name, class: this.selected === a.name ? 'selected' : ''},
          h('td', {}, h('i', {class: 'dot', style: 'background:' + appColour(a.name)}),
              h('a', {href: '#apps/' + encodeURIComponent(a.name), text: a.name})),
          h('td', {class: 'num', text: a.priority}),
          h('td', {}, h('span', {class: 'badge ' + a.state, text: a.state})),
          h('td', {text: failedOn.length ? failedOn.map(([d, why]) => 'OBI ' + d + ': ' + why).join('; ') : ''}),
          h('td', {text: ex.length ? 'OBI ' + ex.join(', ') : ''}),
          h('td', {text: a.failureMode + (a.failureModeSource === 'operator' ? ' (operator)' : '')}),
          h('td', {text: a.action ?? ''}),
          h('td', {class: 'reason', text: a.reason ?? a.error ?? ''}),
          buttons);
    });
    const table = h('table', {class: 'apps'}, h('thead', {}, h('tr', {},
        ['application', 'priority', 'state', 'failed on', 'excluded from', 'failure mode', 'traffic', 'why', '']
            .map(t => h('th', {text: t})))), h('tbody', {}, rows));
    const parts = [table, h('p', {id: 'action-result', text: this.message})];
    if (this.selected) parts.push(this.detail());
    this.root.replaceChildren(...parts);
  }

  detail() {
    const alerts = (this.alerts ?? []).slice().reverse();
    const rules = (this.rules ?? []).flatMap(b => b.rules.map(r => h('tr', {},
        h('td', {text: b.block}), h('td', {class: 'num', text: r.index}), h('td', {class: 'label', text: r.label}),
        h('td', {class: 'num hits', text: r.hits == null ? '–' : r.hits}))));
    return h('div', {class: 'app-detail', 'data-app': this.selected},
        h('h3', {text: this.selected + ': rule hits (all OBIs)'}),
        rules.length ? h('table', {class: 'rules'}, h('thead', {}, h('tr', {},
            ['block', '#', 'rule', 'hits'].map(t => h('th', {text: t})))), h('tbody', {}, rules))
            : h('p', {text: 'No classifier rules.'}),
        h('h3', {text: this.selected + ': latest alerts'}),
        alerts.length ? h('table', {class: 'alerts'}, h('tbody', {}, alerts.map(e => h('tr', {},
            h('td', {text: e.time}), h('td', {text: 'OBI ' + e.dpid}), h('td', {text: e.block ?? e.mergedBlock}),
            h('td', {class: 'num', text: e.severity}), h('td', {text: e.message})))))
            : h('p', {text: 'No alerts.'}));
  }
}
