// summarize.js: turn the JSON that bench/lsp/run.sh collected into the
// markdown tables quoted in docs/benchmarks-lsp.md.
//
//   node summarize.js DIR
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const dir = process.argv[2];
if (!dir) throw new Error('usage: node summarize.js DIR');
const load = (f) => {
  const p = path.join(dir, f);
  const text = fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : '';
  if (text.trim() === '') return null; // not measured (or still being measured)
  return JSON.parse(text);
};
const median = (v) => {
  const s = v.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');

// byLabel groups a compare-mode result's successful runs by server label.
function byLabel(res) {
  const m = new Map();
  for (const r of res?.runs ?? []) {
    if (r.error) { console.error(`${r.label}: ${r.error}`); continue; }
    if (!m.has(r.label)) m.set(r.label, []);
    m.get(r.label).push(r);
  }
  return m;
}

const out = [];
const typing = {};
out.push('### Typing (one-character incremental didChange, scattered, generated Go document)', '');
out.push('| document | server | changes/run | runs | latency p50 (ms) | p99 (ms) | server CPU per change (µs) | total server CPU (ms) | peak RSS (MB) |');
out.push('|---|---|---|---|---|---|---|---|---|');
for (const size of ['1MB', '10MB']) {
  for (const f of [`typing-${size}.json`, `typing-${size}-gopls.json`]) {
    for (const [label, runs] of byLabel(load(f))) {
      if (f.includes('gopls') && label !== 'gopls') continue; // cb-ls is in the main file already
      const row = {
        p50: median(runs.map((r) => r.changes.latency.p50_ms)),
        p99: median(runs.map((r) => r.changes.latency.p99_ms)),
        cpu: median(runs.map((r) => r.changes.self_cpu_per_change_us)),
        total: median(runs.map((r) => r.changes.total_self_cpu_ms)),
        rss: median(runs.map((r) => r.mem.peak_rss_kb / 1024)),
      };
      typing[`${label}@${size}`] = row;
      out.push(`| ${size} | ${label} | ${runs[0].changes.sent} | ${runs.length} | ${fmt(row.p50, 3)} | ${fmt(row.p99, 3)} | ${fmt(row.cpu)} | ${fmt(row.total)} | ${fmt(row.rss)} |`);
    }
  }
}
const a = typing['cb-ls@1MB'];
const b = typing['cb-ls@10MB'];
if (a && b) {
  out.push('', `cb-ls 10 MB / 1 MB: latency p50 ×${fmt(b.p50 / a.p50, 2)}, server CPU per change ×${fmt(b.cpu / a.cpu, 2)} (target ≤ 1.5).`);
}

const st = byLabel(load('startup.json'));
if (st.size) {
  out.push('', '### Start-up (process start → initialize answered, full binary)', '');
  out.push('| server | runs | median (ms) | min (ms) | max (ms) |', '|---|---|---|---|---|');
  for (const [label, runs] of st) {
    const v = runs.map((r) => r.init.spawn_to_initialize_ms);
    out.push(`| ${label} | ${v.length} | ${fmt(median(v))} | ${fmt(Math.min(...v))} | ${fmt(Math.max(...v))} |`);
  }
}

const md = [['cb-ls', load('manydocs-cb-ls.json')], ['textdoc', load('manydocs-textdoc.json')]].filter(([, r]) => r);
if (md.length) {
  out.push('', '### 1,000 open documents of 100 KB (RSS of the whole process)', '');
  out.push('| server | text (MB) | RSS before (MB) | RSS after (MB) | peak RSS (MB) | RSS / text | growth / text |', '|---|---|---|---|---|---|---|');
  for (const [label, r] of md) {
    out.push(`| ${label} | ${fmt(r.text_bytes / 1048576)} | ${fmt(r.rss_before_kb / 1024)} | ${fmt(r.rss_settled_kb / 1024)} | ${fmt(r.peak_rss_kb / 1024)} | ${fmt(r.rss_settled_over_text, 2)} | ${fmt(r.growth_over_text, 2)} |`);
  }
}
console.log(out.join('\n'));
