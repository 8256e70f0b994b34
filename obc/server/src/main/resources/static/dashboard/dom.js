// Small DOM and formatting helpers shared by the dashboard's views.

export const SVG_NS = 'http://www.w3.org/2000/svg';

/** An element with attributes ({class, text, ...}) and children. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAll(el, attrs);
  el.append(...children.flat().filter(c => c != null));
  return el;
}

/** An SVG element with attributes. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAll(el, attrs);
  el.append(...children.flat().filter(c => c != null));
  return el;
}

function setAll(el, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (k === 'text') el.textContent = String(v);
    else if (k.startsWith('on')) el.addEventListener(k.substring(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

/** 1234567 -> "1.23 M". */
export function num(n) {
  if (n == null || Number.isNaN(n)) return '–';
  const a = Math.abs(n);
  if (a >= 1e9) return (n / 1e9).toFixed(2) + ' G';
  if (a >= 1e6) return (n / 1e6).toFixed(2) + ' M';
  if (a >= 1e4) return (n / 1e3).toFixed(1) + ' k';
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

/** Seconds -> "2 h 3 min". */
export function duration(sec) {
  if (sec == null) return '–';
  sec = Math.floor(sec);
  if (sec < 60) return sec + ' s';
  if (sec < 3600) return Math.floor(sec / 60) + ' min ' + (sec % 60) + ' s';
  if (sec < 86400) return Math.floor(sec / 3600) + ' h ' + Math.floor(sec % 3600 / 60) + ' min';
  return Math.floor(sec / 86400) + ' d ' + Math.floor(sec % 86400 / 3600) + ' h';
}

/** Colour of an application: a fixed palette in the order applications are first seen. */
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948', '#9c755f'];
const assigned = new Map();
export function appColour(app) {
  if (!assigned.has(app)) assigned.set(app, PALETTE[assigned.size % PALETTE.length]);
  return assigned.get(app);
}
