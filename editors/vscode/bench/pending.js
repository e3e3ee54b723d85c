// Benchmark (not a test) of the extension's own work per keystroke in a file
// with pending changes: after each keystroke the server sends the run's
// hunks again (moved over the typing) and the view recomputes what to draw.
// 200 hunks in a 5,000-line file; median of 200 updates. VS Code's
// setDecorations itself (the renderer's side) is not measured here.
//   npm run -s pretest && node bench/pending.js
const { PendingModel, afterText } = require('../out/tsc/src/pendingModel.js');

const uri = 'file:///p/big.go';
const lines = Array.from({ length: 5000 }, (_, i) => `\tx${i} := compute(${i}) // line ${i + 1}`);
function note(shift) {
  const hunks = [];
  for (let i = 1; i <= 200; i++) {
    const l = i * 25 - 1 + shift;
    hunks.push({
      id: 'h' + i,
      range: { start: { line: l, character: 0 }, end: { line: l + 1, character: 0 } },
      oldText: lines[l - shift] + '\n',
      newText: lines[l - shift].replace('compute', 'computeFast') + '\n',
      label: `line ${l + 1}`,
    });
  }
  return { runId: 'r1', files: [{ uri, path: 'big.go', kind: 'changed', hunks }] };
}

const m = new PendingModel();
const times = [];
for (let k = 0; k < 201; k++) {
  const n = note(k % 2);
  const t0 = process.hrtime.bigint();
  m.update(n);
  const several = m.severalRuns();
  const removed = [];
  const after = [];
  for (const h of m.hunks(uri)) {
    removed.push([h.first, h.last - 1]);
    after.push([h.last - 1, afterText(h, several)]);
  }
  m.hunks(uri); // the editor title's context key
  m.count();
  if (k > 0) {
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  if (removed.length !== 200 || after.length !== 200) {
    throw new Error('wrong hunk count');
  }
}
times.sort((a, b) => a - b);
console.log(`pending: update of 200 hunks, 5,000 lines   ${times[Math.floor(times.length / 2)].toFixed(3)} ms median (200 keystrokes)`);
