// E2E test of the diagnostics after a pending edit, in VS Code with
// catbuddy.review "pending": a run's edits wait as pending changes, so the
// editor's language servers (here: none for Go) see the user's text, never
// the run's. cb-ls starts a gopls of its own for the run's view
// (runViewServers "auto": gopls found on cb-ls's PATH, where run.js puts
// GOPLS's directory), and the edit's tool result, what the model reads
// next, names the error the edit introduced; an edit that fixes a file
// broken on disk names nothing new. Both stay pending: the user's files,
// on disk and in the editor, keep their text until kept. Without GOPLS
// the test skips, and fails under CB_LS_REQUIRE_TOOLS=1 (CI). Agent: Show
// Status names that gopls and its memory.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

// A package of its own, so that what other tests put in the module's
// root package (and its compile errors) is not in its diagnostics.
const MARKS = 'package marks\n\n// Total adds up the marks.\nfunc Total(marks []int) int {\n\ttotal := 0\n\tfor _, m := range marks {\n\t\ttotal += m\n\t}\n\treturn total\n}\n';
// Broken on disk: count is undefined.
const MEAN = 'package marks\n\n// Mean returns the average mark.\nfunc Mean(marks []int) int {\n\treturn Total(marks) / count\n}\n';
const MEAN_FIXED = MEAN.replace('/ count', '/ len(marks)');

// goplsGiven returns the gopls run.js puts on cb-ls's PATH (GOPLS, set
// by scripts/test-vscode.sh), or "" when there is none that runs.
function goplsGiven() {
  const f = process.env.GOPLS ? path.resolve(process.env.GOPLS) : '';
  try {
    fs.accessSync(f, fs.constants.X_OK);
    return fs.statSync(f).isFile() ? f : '';
  } catch {
    return '';
  }
}

// lines returns an editor's lines in screen order (Monaco reuses its line
// elements, so DOM order is not line order), spaces as spaces.
async function lines(page) {
  return page.locator('.monaco-editor .view-line').evaluateAll((els) =>
    els.map((el) => ({ top: parseFloat(el.style.top) || 0, text: (el.textContent || '').replace(/\u00a0/g, ' ') })).sort((a, b) => a.top - b.top).map((l) => l.text));
}

function add({ files, script, tests, palette, openAt, idle, requests, notified }) {
  const name = 'a pending edit that breaks the build: its result names gopls\'s new error; one that fixes a file names nothing';
  if (!goplsGiven()) {
    const why = `no gopls for cb-ls (GOPLS=${JSON.stringify(process.env.GOPLS || '')}; scripts/test-vscode.sh sets it from scripts/get-gopls.sh)`;
    if (process.env.CB_LS_REQUIRE_TOOLS === '1') {
      tests.push({ name, async fn() { throw new Error(`${why}, and CB_LS_REQUIRE_TOOLS=1 forbids skipping`); } });
    } else {
      tests.push({ name, skip: why });
    }
    return;
  }
  files['marks/marks.go'] = MARKS;
  files['marks/mean.go'] = MEAN;
  const first = script.turns.length; // the index of this file's first model request
  script.turns.push(
    { tool_calls: [{ name: 'edit_file', args: { path: 'marks/marks.go', old_string: '\treturn total\n', new_string: '\treturn totalMark\n' } }] },
    { tool_calls: [{ name: 'read_file', args: { path: 'marks/mean.go' } }] },
    { tool_calls: [{ name: 'edit_file', args: { path: 'marks/mean.go', old_string: '/ count', new_string: '/ len(marks)' } }] },
    { text: 'Total returns totalMark now, which gopls says is undefined; Mean divides by len(marks).' },
  );
  // lastResult is the last tool result in the model's request n: what it was told of its last call.
  const lastResult = (model, n) => {
    const msgs = requests(model.record)[n].body.messages.filter((m) => m.role === 'tool');
    assert.ok(msgs.length > 0, `request ${n} carries no tool result`);
    const c = msgs[msgs.length - 1].content;
    return typeof c === 'string' ? c : JSON.stringify(c);
  };

  tests.push({
    name,
    async fn(ctx) {
      const { page, ws, model } = ctx;
      const marks = path.join(ws, 'marks/marks.go');
      const mean = path.join(ws, 'marks/mean.go');
      const before = fs.readFileSync(ctx.userSettings, 'utf8');
      fs.writeFileSync(ctx.userSettings, JSON.stringify({ ...JSON.parse(before), 'catbuddy.review': 'pending' }, null, 2));
      let passed = false;
      try {
        await idle(page).waitFor({ timeout: 30000 });
        await palette(page, 'F1', '>Notifications: Clear All Notifications');
        await openAt(ctx, 'marks.go', 9, 'return total');
        await palette(page, 'F1', '>Agent: Fix This');
        await notified(page, '2 files changed — pending review', 90000);
        await ctx.waitFor('the model to hear back after both edits', 30000, () => requests(model.record).length >= first + 4);

        // The model's second request: what it was told of the edit that broke marks.go.
        const broke = lastResult(model, first + 1);
        ctx.log(`the breaking edit's result: ${JSON.stringify(broke)}`);
        assert.match(broke, /^Edited marks\/marks\.go \(.*\): pending the user's review/, 'the edit is pending');
        assert.match(broke, /\nAfter this edit, gopls reports:\nmarks\/marks\.go:9:9 error: undefined: totalMark( \[\w+\])? \(new\)$/,
          'the result names gopls\'s new error on the run\'s text');
        // The fourth, after it read mean.go: the edit that fixed mean.go, broken on disk, names nothing.
        const fixed = lastResult(model, first + 3);
        ctx.log(`the fixing edit's result: ${JSON.stringify(fixed)}`);
        assert.match(fixed, /^Edited marks\/mean\.go \(.*\): pending the user's review/, 'the fix is pending');
        assert.doesNotMatch(fixed, /reports?:|Note:|undefined/, 'the fixing edit names nothing new');

        // Pending: the user's files, on disk and in the editor, are as they were.
        assert.equal(fs.readFileSync(marks, 'utf8'), MARKS, 'marks.go on disk unchanged while pending');
        assert.equal(fs.readFileSync(mean, 'utf8'), MEAN, 'mean.go on disk unchanged while pending');
        await page.locator('.codelens-decoration a', { hasText: 'Keep' }).first().waitFor({ timeout: 20000 });
        const shown = await lines(page);
        assert.ok(shown.some((l) => l.trim() === 'return total'), `the buffer holds the user's line: ${JSON.stringify(shown)}`);
        assert.ok(!shown.some((l) => /totalMark/.test(l)), `the buffer holds no pending text: ${JSON.stringify(shown)}`);
        assert.equal(await page.locator('.tabs-container .tab.dirty').count(), 0, 'the buffer is what is on disk');

        // Agent: Show Status names the run view's gopls and its memory.
        await palette(page, 'F1', '>Agent: Show Status');
        await notified(page, { hasText: /gopls \(pid \d+\): \d+\.\d MB resident \(run view\)/, label: 'of Show Status naming the run view\'s gopls' }, 20000);

        // Kept, the fix lands; undone, the break never does.
        await openAt(ctx, 'mean.go', 5, 'Total(marks) / count');
        await palette(page, 'F1', '>Agent: Keep All Pending Changes');
        await ctx.waitFor('the fix on disk once kept', 20000, () => fs.readFileSync(mean, 'utf8') === MEAN_FIXED);
        await openAt(ctx, 'marks.go', 9, 'return total');
        await palette(page, 'F1', '>Agent: Undo All Pending Changes');
        await ctx.waitFor('nothing pending', 20000, async () => (await page.locator('.statusbar-item', { hasText: /\d+ pending/ }).count()) === 0);
        assert.equal(fs.readFileSync(marks, 'utf8'), MARKS, 'the undone break never reached the disk');
        passed = true;
      } finally {
        fs.writeFileSync(ctx.userSettings, before);
        if (!passed) {
          // Leave nothing pending for the tests after this one.
          for (const f of ['marks.go', 'mean.go']) {
            await openAt(ctx, f, 1, 'package marks').catch(() => {});
            await palette(page, 'F1', '>Agent: Undo All Pending Changes').catch(() => {});
          }
        }
      }
    },
  });
}

module.exports = { add };
