// Management API access for the dashboard: the browser session's cookie goes with every
// request, X-Requested-With keeps the controller from asking for Basic credentials, POSTs
// carry the CSRF token from the XSRF-TOKEN cookie. A 401 means the session ended: the page
// reloads and the controller shows its login form.

const XHR = {'X-Requested-With': 'XMLHttpRequest'};

export function csrfToken() {
  const c = document.cookie.split('; ').find(kv => kv.startsWith('XSRF-TOKEN='));
  return c ? decodeURIComponent(c.substring('XSRF-TOKEN='.length)) : '';
}

function loggedOut(r) {
  if (r.status === 401) {
    location.reload();
    return true;
  }
  return false;
}

/** GET a JSON document; null when it failed (the reason goes to the status line). */
export async function get(path) {
  try {
    const r = await fetch(path, {headers: XHR, credentials: 'same-origin'});
    if (loggedOut(r)) return null;
    if (!r.ok) {
      const body = await r.json().catch(() => ({}));
      status(path + ': ' + r.status + ' ' + (body.message || body.error || ''));
      return null;
    }
    return await r.json();
  } catch (e) {
    status(path + ': ' + e.message);
    return null;
  }
}

/** POST without a body; answers {status, body}. */
export async function post(path) {
  const r = await fetch(path, {method: 'POST', credentials: 'same-origin',
    headers: {...XHR, 'X-XSRF-TOKEN': csrfToken()}});
  if (loggedOut(r)) return {status: 401, body: {}};
  return {status: r.status, body: await r.json().catch(() => ({}))};
}

export function status(text) {
  const el = document.getElementById('status');
  if (el) {
    el.textContent = text ? new Date().toLocaleTimeString() + ' ' + text : '';
  }
}
