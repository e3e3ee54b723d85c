// summarize.js: turn the JSON that bench/lsp/run.sh collected (the driver's
// one object per line, manydocs.js's one object) into the markdown tables
// quoted in docs/benchmarks-lsp.md. Medians over runs.
//
//   node summarize.js DIR
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const dir = process.argv[2];
if (!dir) throw new Error('usage: node summarize.js DIR');
const lines = (f) => {
  const p = path.join(dir, f);
  if (!fs.existsSync(p)) return [];
  return fs.readFileSync(p, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
};
const one = (f) => {
  const p = path.join(dir, f);
  return fs.existsSync(p) && fs.readFileSync(p, 'utf8').trim() ? JSON.parse(fs.readFileSync(p, 'utf8')) : null;
};
const median = (v) => {
  const s = v.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');

// byServer groups successful results by server, in first-seen order.
function byServer(results) {
  const m = new Map();
  for (const r of results) {
    if (r.error) { console.error(`${r.server} run ${r.run}: ${r.error}`); continue; }
    if (!m.has(r.server)) m.set(r.server, []);
    m.get(r.server).push(r);
  }
  return m;
}

const out = [];
const typing = {};
out.push('### Typing (one-character incremental didChange at scattered lines of a generated Go document)', '');
out.push('| document | server | changes/run | runs | latency p50 (ms) | p99 (ms) | server CPU per change (µs) | peak RSS (MB) |');
out.push('|---|---|---|---|---|---|---|---|');
for (const size of ['1MB', '10MB']) {
  for (const [server, runs] of byServer(lines(`typing-${size}.json`))) {
    const row = {
      p50: median(runs.map((r) => r.latency_p50_ms)),
      p99: median(runs.map((r) => r.latency_p99_ms)),
      cpu: median(runs.map((r) => r.cpu_per_change_us)),
      rss: median(runs.map((r) => r.peak_rss_kb / 1024)),
    };
    typing[`${server}@${size}`] = row;
    out.push(`| ${size} | ${server} | ${runs[0].changes} | ${runs.length} | ${fmt(row.p50, 3)} | ${fmt(row.p99, 3)} | ${fmt(row.cpu)} | ${fmt(row.rss)} |`);
  }
}
const a = typing['cb-ls@1MB'];
const b = typing['cb-ls@10MB'];
if (a && b) {
  out.push('', `cb-ls 10 MB / 1 MB: latency p50 ×${fmt(b.p50 / a.p50, 2)}, server CPU per change ×${fmt(b.cpu / a.cpu, 2)} (target ≤ 1.5).`);
}
for (const size of ['1MB', '10MB']) {
  const p = typing[`peer@${size}`];
  const c = typing[`cb-ls@${size}`];
  if (p && c) out.push(`${size}: the peer uses ×${fmt(p.cpu / c.cpu, 1)} cb-ls's CPU per change.`);
}

const st = byServer(lines('startup.json'));
if (st.size) {
  out.push('', '### Start-up (process start → initialize answered, full binary)', '');
  out.push('| server | runs | median (ms) | min (ms) | max (ms) |', '|---|---|---|---|---|');
  for (const [server, runs] of st) {
    const v = runs.map((r) => r.initialize_ms);
    out.push(`| ${server} | ${v.length} | ${fmt(median(v))} | ${fmt(Math.min(...v))} | ${fmt(Math.max(...v))} |`);
  }
}

const md = [['cb-ls', one('manydocs-cb-ls.json')], ['peer', one('manydocs-peer.json')]].filter(([, r]) => r);
if (md.length) {
  out.push('', '### 1,000 open documents of 100 KB (RSS of the whole process)', '');
  out.push('| server | text (MB) | RSS before (MB) | RSS after (MB) | peak RSS (MB) | RSS / text | growth / text |', '|---|---|---|---|---|---|---|');
  for (const [server, r] of md) {
    out.push(`| ${server} | ${fmt(r.text_bytes / 1048576)} | ${fmt(r.rss_before_kb / 1024)} | ${fmt(r.rss_settled_kb / 1024)} | ${fmt(r.peak_rss_kb / 1024)} | ${fmt(r.rss_settled_over_text, 2)} | ${fmt(r.growth_over_text, 2)} |`);
  }
}
console.log(out.join('\n'));
