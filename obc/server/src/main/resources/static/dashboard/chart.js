// A small SVG line chart of time series: [{name, colour, points: [[timeMs, value], ...]}],
// drawn over the common time span with a zero-based y axis, its maximum and the time span
// as labels, and a legend.

import {s, num} from './dom.js';

export function lineChart(series, {width = 360, height = 120, label = ''} = {}) {
  const left = 46, right = 8, top = 8, bottom = 30;
  const all = series.flatMap(x => x.points);
  const svg = s('svg', {class: 'chart', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
    'aria-label': label});
  const pw = width - left - right, ph = height - top - bottom;
  svg.append(s('rect', {x: left, y: top, width: pw, height: ph, class: 'plot'}));
  if (all.length < 2) {
    svg.append(s('text', {x: left + pw / 2, y: top + ph / 2, 'text-anchor': 'middle', class: 'axis',
      text: 'collecting…'}));
    return svg;
  }
  const t0 = Math.min(...all.map(p => p[0])), t1 = Math.max(...all.map(p => p[0]));
  const vmax = Math.max(1, ...all.map(p => p[1])) * 1.1;   // headroom: a flat series stays visible
  const x = t => left + (t1 === t0 ? pw : (t - t0) / (t1 - t0) * pw);
  const y = v => top + ph - v / vmax * ph;
  for (const f of [0.5, 1]) {
    svg.append(s('line', {x1: left, x2: left + pw, y1: y(vmax * f), y2: y(vmax * f), class: 'grid'}));
  }
  svg.append(s('text', {x: left - 4, y: y(vmax) + 4, 'text-anchor': 'end', class: 'axis', text: num(vmax)}));
  svg.append(s('text', {x: left - 4, y: y(0) + 4, 'text-anchor': 'end', class: 'axis', text: '0'}));
  svg.append(s('text', {x: left, y: top + ph + 12, class: 'axis',
    text: '−' + Math.round((t1 - t0) / 1000) + ' s'}));
  svg.append(s('text', {x: left + pw, y: top + ph + 12, 'text-anchor': 'end', class: 'axis', text: 'now'}));
  let lx = left;
  for (const sr of series) {
    if (sr.points.length) {
      svg.append(s('polyline', {class: 'series', stroke: sr.colour, 'data-series': sr.name,
        points: sr.points.map(p => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(' ')}));
    }
    svg.append(s('rect', {x: lx, y: height - 10, width: 8, height: 8, fill: sr.colour}));
    svg.append(s('text', {x: lx + 11, y: height - 2, class: 'legend', text: sr.name}));
    lx += 14 + sr.name.length * 6.5;
  }
  return svg;
}
