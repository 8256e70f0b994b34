// The operator's dashboard: four views chosen by the address's fragment (#topology,
// #obi/DPID, #apps[/NAME], #alerts), each refreshed by polling only while it is shown
// (OBIs and their stats every 2 s, the shown OBI's counters and rule hits every 3 s), and the
// alert view's live stream. Runs as plain ES modules: nothing to build.

import {get, status} from './api.js';
import {appColour} from './dom.js';
import {TopologyView} from './topology.js';
import {ObiView} from './obi.js';
import {AppsView} from './apps.js';
import {AlertsView} from './alerts.js';

const views = ['topology', 'obi', 'apps', 'alerts'];
let me = {name: '', roles: []};
let obis = [];
let apps = [];

const topology = new TopologyView(document.getElementById('view-topology'), dpid => { location.hash = '#obi/' + dpid; });
const obi = new ObiView(document.getElementById('view-obi'));
const appsView = new AppsView(document.getElementById('view-apps'), () => me.roles.includes('OPERATOR'));
const alerts = new AlertsView(document.getElementById('view-alerts'));

function route() {
  const [name, arg] = location.hash.replace(/^#/, '').split('/');
  const view = views.includes(name) ? name : 'topology';
  for (const v of views) {
    document.getElementById('view-' + v).hidden = v !== view;
    document.querySelector(`nav a[data-view="${v}"]`)?.classList.toggle('active', v === view);
  }
  if (view !== 'alerts') alerts.stop();
  return {view, arg: arg == null ? null : decodeURIComponent(arg)};
}

// one refresh at a time; a request for another while one runs (a click on a tab) is done right after it
let busy = false;
let again = false;
async function refresh() {
  if (busy) {
    again = true;
    return;
  }
  busy = true;
  try {
    do {
      again = false;
      await refreshView();
    } while (again);
  } finally {
    busy = false;
  }
}

async function refreshView() {
  const {view, arg} = route();
  if (view === 'topology') {
    await topology.poll();
    obis = topology.obis;
    topology.render();
  } else if (view === 'obi') {
    obis = (await get('/api/obis')) ?? obis;
    const dpid = arg != null ? Number(arg) : obis[0]?.dpid ?? null;
    await obi.show(dpid, obis);
    await obi.poll();
  } else if (view === 'apps') {
    appsView.selected = arg;
    await appsView.poll();
    appsView.render();
  } else if (view === 'alerts') {
    apps = (await get('/api/apps')) ?? apps;
    obis = (await get('/api/obis')) ?? obis;
    if (!alerts.built) {
      alerts.build(apps, obis);
      await alerts.apply();
    } else {
      alerts.refreshChoices(apps, obis);
      if (!alerts.source && alerts.form.querySelector('#f-live').checked) await alerts.apply();
    }
  }
  status('');
}

async function start() {
  me = (await get('/api/me')) ?? me;
  document.getElementById('who').textContent = me.name + ' (' + (me.roles.join(', ') || 'no role') + ')';
  apps = (await get('/api/apps')) ?? [];
  apps.forEach(a => appColour(a.name));   // colours in priority order, the same in every view
  // the chosen view shows at once, its data follow
  window.addEventListener('hashchange', () => { alerts.stop(); route(); refresh(); });
  await refresh();
  setInterval(() => { if (route().view !== 'obi') refresh(); }, 2000);
  setInterval(() => { if (route().view === 'obi') refresh(); }, 3000);
}

document.getElementById('logout').addEventListener('submit', e => {
  e.target._csrf.value = decodeURIComponent((document.cookie.split('; ').find(c => c.startsWith('XSRF-TOKEN=')) ?? '=')
      .split('=')[1]);
});
start();
