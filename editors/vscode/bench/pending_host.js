// Benchmark (not a test) of the extension host's whole work per keystroke
// in a file with pending changes, in a real VS Code through the e2e
// harness: E2E_ONLY=pending_host bash scripts/test-vscode.sh.
//
// Five runs leave 200 pending hunks in a 5,000-line file (each a
// multi_edit of every 125th line, every 25th line in all). Then the test types in the file, in bursts of a few
// keys (every fourth burst a new line, which moves every hunk below), with
// the pauses of someone typing, so that after each burst the extension
// asks the server for the hunks again, as it does. The extension measures
// its own work (Agent: Pending Changes Timings, catbuddy.pendingTimings):
//   keystroke  its handler of the document change
//   update     a set from the server (notification or catbuddy.pendingChanges
//              answer) into the model, the decorations of every visible
//              editor, the status bar, the tree, the diff editors and the
//              context key
//   codeLens   VS Code asking for the file's Keep / Undo lenses after it
// wall and CPU time, median; the result is printed and written to
// ART/pending_host.json. VS Code's own rendering (in the browser) is not
// in these figures.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const assert = require('node:assert/strict');

const LINES = 5000;
const EVERY = 25;
const RUNS = 5;
const line = (i) => `\tx${i} := compute(${i}) // line ${i + 1}`;
const BIG = 'package big\n\nfunc f() {\n' + Array.from({ length: LINES }, (_, i) => line(i)).join('\n') + '\n}\n';

function add({ files, script, tests, palette, openAt, idle }) {
  files['big.go'] = BIG;
  // The server's line diff stops looking for matches after about 100
  // changed lines, so one run's 200 hunks would come as 50 and one large
  // one: five runs leave 40 hunks each, on lines of their own.
  for (let run = 0; run < RUNS; run++) {
    const edits = [];
    for (let i = EVERY - 1 + run * EVERY; i < LINES; i += EVERY * RUNS) {
      edits.push({ old_string: line(i) + '\n', new_string: line(i).replace('compute', 'computeFast') + '\n' });
    }
    script.turns.push({ tool_calls: [{ name: 'multi_edit', args: { path: 'big.go', edits } }] }, { text: `Made ${edits.length} calls fast.` });
  }

  // timings runs Agent: Pending Changes Timings and reads what it logged
  // (the work measured since it last ran).
  async function timings(ctx) {
    const dir = path.join(ctx.run, 'ud/logs');
    const read = () => fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('cb-ls.log'))
      .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n')).filter((l) => l.includes('pending timings: '));
    const before = read().length;
    await palette(ctx.page, 'F1', '>Agent: Pending Changes Timings');
    return ctx.waitFor('catbuddy.pendingTimings to log', 30000, () => {
      const lines = read();
      return lines.length > before ? JSON.parse(lines[lines.length - 1].split('pending timings: ')[1]) : null;
    });
  }

  tests.push({
    name: 'benchmark: the extension host\'s work per keystroke with 200 pending hunks in a 5,000-line file',
    async fn(ctx) {
      const { page } = ctx;
      const before = fs.readFileSync(ctx.userSettings, 'utf8');
      fs.writeFileSync(ctx.userSettings, JSON.stringify({ ...JSON.parse(before), 'catbuddy.review': 'pending' }, null, 2));
      try {
        await idle(page).waitFor({ timeout: 30000 });
        await openAt(ctx, 'big.go', 2500, 'line 1');
        // Counted from what earlier tests left pending, if anything.
        const pending = async () => {
          const items = await page.locator('.statusbar-item', { hasText: /\d+ pending/ }).allInnerTexts();
          return items.length === 0 ? 0 : Number(/(\d+) pending/.exec(items[0])[1]);
        };
        const base = await pending();
        for (let run = 1; run <= RUNS; run++) {
          await palette(page, 'F1', '>Agent: Fix This');
          await ctx.waitFor(`${run * 40} hunks pending in big.go`, 120000, async () => (await pending()) === base + run * 40);
          await idle(page).waitFor({ timeout: 30000 });
        }
        await page.locator('.codelens-decoration a', { hasText: 'Keep' }).first().waitFor({ state: 'attached', timeout: 30000 });
        await timings(ctx); // from here on
        await page.locator('.monaco-editor .view-line', { hasText: 'line 2510' }).first().click();
        await page.keyboard.press('End');
        for (let burst = 0; burst < 40; burst++) {
          await page.keyboard.type(' x1', { delay: 60 });
          if (burst % 4 === 3) {
            await page.keyboard.press('Enter');
          }
          // A typist's pause: longer than the extension's 300 ms, so it asks for the hunks again.
          await page.waitForTimeout(450);
        }
        const r = await timings(ctx);
        assert.ok(r.update && r.update.count >= 20, `updates measured: ${JSON.stringify(r)}`);
        assert.equal(r.update.hunks, base + 200, 'the updates handled the 200 hunks (and those left before)');
        assert.ok(r.keystroke && r.keystroke.count >= 120, `keystrokes measured: ${JSON.stringify(r.keystroke)}`);
        const lens = r.codeLens ? r.codeLens.medianMs : 0;
        const out = { ...r, totalMedianMs: Math.round((r.update.medianMs + lens + r.keystroke.medianMs) * 1000) / 1000, loadavg: os.loadavg().map((x) => Math.round(x * 10) / 10), cpus: os.cpus().length };
        fs.writeFileSync(path.join(ctx.art, 'pending_host.json'), JSON.stringify(out, null, 2));
        ctx.log(`pending host benchmark: ${JSON.stringify(out)}`);
        // Leave big.go with nothing pending and the typing reverted.
        await palette(page, 'F1', '>Agent: Undo All Pending Changes');
        await ctx.waitFor('big.go\'s hunks undone', 30000, async () => (await pending()) === base);
        await palette(page, 'F1', '>File: Revert File');
      } finally {
        fs.writeFileSync(ctx.userSettings, before);
      }
    },
  });
}

module.exports = { add };
