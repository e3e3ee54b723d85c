// E2E tests of the Pending Changes view and of a keep over the user's
// typing, with catbuddy.review "pending": a run's end offers Review (the
// view), which lists the run's files with +N −M and their hunks; the run's
// Keep All there keeps every file; typing inside a pending hunk, then Keep,
// leaves the hunk pending with the reason and keeps the typing; the run's
// Undo All there discards it. Added after pending.js by scenario.js: the
// script's turns are consumed in order.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const VIEW_A = 'package calc\n\n// Inc returns a plus one.\nfunc Inc(a int) int {\n\treturn a - 1\n}\n';
const VIEW_B = 'package calc\n\n// Dec returns a minus one.\nfunc Dec(a int) int {\n\treturn a + 1\n}\n';
const CONF = 'package calc\n\n// Neg returns minus a.\nfunc Neg(a int) int {\n\treturn a\n}\n';

function add({ files, script, tests, palette, openAt, idle, notified, notification, closeCenter }) {
  files['view_a.go'] = VIEW_A;
  files['view_b.go'] = VIEW_B;
  files['conf.go'] = CONF;
  script.turns.push(
    { tool_calls: [{ name: 'edit_file', args: { path: 'view_a.go', old_string: '\treturn a - 1', new_string: '\treturn a + 1' } }] },
    { tool_calls: [{ name: 'edit_file', args: { path: 'view_b.go', old_string: '\treturn a + 1', new_string: '\treturn a - 1' } }] },
    { text: 'Fixed Inc and Dec.' },
    { tool_calls: [{ name: 'edit_file', args: { path: 'conf.go', old_string: '\treturn a\n', new_string: '\treturn -a\n' } }] },
    { text: 'Fixed Neg.' },
  );

  // withPending runs fn with catbuddy.review "pending" in the user settings.
  async function withPending(ctx, fn) {
    const before = fs.readFileSync(ctx.userSettings, 'utf8');
    fs.writeFileSync(ctx.userSettings, JSON.stringify({ ...JSON.parse(before), 'catbuddy.review': 'pending' }, null, 2));
    try {
      // An earlier run's end notification must not stand for this one's.
      await palette(ctx.page, 'F1', '>Notifications: Clear All Notifications');
      await fn();
    } finally {
      fs.writeFileSync(ctx.userSettings, before);
    }
  }
  const pane = (page) => page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Pending Changes' }) }).first();
  const rows = (page, hasText) => pane(page).locator('.monaco-list-row', { hasText });
  // runRow is the only run's row: the tree's one row at its top level (the
  // first row in the DOM need not be the first on screen, and a file row has
  // a Keep All of its own).
  const runRow = (page) => pane(page).locator('.monaco-list-row[aria-level="1"]').first();
  // rowAction clicks one of a row's inline actions (they show on hover).
  async function rowAction(page, row, label) {
    await row.hover();
    const action = row.locator(`.action-label[aria-label^="${label}"]`).first();
    await action.waitFor({ timeout: 10000 });
    await action.click();
  }

  tests.push({
    name: 'pending changes view: Review lists the run\'s files and hunks; a hunk opens; the run\'s Keep All keeps every file',
    async fn(ctx) {
      const { page, ws } = ctx;
      await withPending(ctx, async () => {
        await idle(page).waitFor({ timeout: 30000 });
        await openAt(ctx, 'view_a.go', 5, 'return a - 1');
        await palette(page, 'F1', '>Agent: Fix This');
        const ended = await notification(page, '2 files changed — pending review', 60000);
        await ended.getByRole('button', { name: 'Review', exact: true }).click();
        await closeCenter(page);
        await rows(page, 'view_a.go').first().waitFor({ timeout: 20000 });
        for (const f of ['view_a.go', 'view_b.go']) {
          const text = await rows(page, f).first().innerText();
          assert.match(text, /\+1\s*−1/, `${f}'s row counts its lines: ${text}`);
        }
        assert.equal(fs.readFileSync(path.join(ws, 'view_a.go'), 'utf8'), VIEW_A, 'nothing on disk while pending');
        // view_b.go's hunk row: clicking it opens view_b.go.
        const hunk = rows(page, 'return a - 1').last();
        await hunk.waitFor({ timeout: 10000 });
        await hunk.click();
        await page.locator('.tabs-container .tab.active', { hasText: 'view_b.go' }).first().waitFor({ timeout: 20000 });
        const shot = path.join(ctx.art, 'vscode-pending-view.png');
        await page.screenshot({ path: shot });
        await rowAction(page, runRow(page), 'Keep All Pending Changes');
        const wantA = VIEW_A.replace('\treturn a - 1', '\treturn a + 1');
        const wantB = VIEW_B.replace('\treturn a + 1', '\treturn a - 1');
        try {
          await ctx.waitFor('both files kept on disk', 20000, () =>
            fs.readFileSync(path.join(ws, 'view_a.go'), 'utf8') === wantA && fs.readFileSync(path.join(ws, 'view_b.go'), 'utf8') === wantB);
          await ctx.waitFor('the view empty', 20000, async () => (await rows(page, 'view_').count()) === 0);
        } catch (e) {
          // Leave nothing pending or unsaved for the tests after this one.
          for (const f of ['view_a.go', 'view_b.go']) {
            await openAt(ctx, f, 1, 'package calc').catch(() => {});
            await palette(page, 'F1', '>Agent: Undo All Pending Changes').catch(() => {});
            await palette(page, 'F1', '>File: Revert File').catch(() => {});
          }
          throw e;
        }
      });
    },
  });

  tests.push({
    name: 'pending changes: typing inside a hunk, then Keep, reports the conflict and keeps the typing; the view\'s Undo All discards',
    async fn(ctx) {
      const { page, ws } = ctx;
      const file = path.join(ws, 'conf.go');
      await withPending(ctx, async () => {
        await idle(page).waitFor({ timeout: 30000 });
        await openAt(ctx, 'conf.go', 5, 'return a');
        await palette(page, 'F1', '>Agent: Fix This');
        await notified(page, '1 file changed — pending review', 60000);
        const keep = page.locator('.codelens-decoration a', { hasText: 'Keep' });
        await keep.first().waitFor({ timeout: 20000 });
        // Type at the end of the hunk's line.
        await page.locator('.monaco-editor .view-line', { hasText: 'return a' }).first().click();
        await page.keyboard.press('End');
        await page.keyboard.type(' // mine');
        await page.locator('.tabs-container .tab.dirty').first().waitFor({ timeout: 10000 });
        // The server marks the hunk in conflict: its lenses are the resolutions,
        // with no Keep; Agent: Keep Pending Change (the cursor is on the line) still asks.
        await page.locator('.codelens-decoration a', { hasText: 'Keep Both' }).first().waitFor({ timeout: 20000 });
        assert.equal(await page.locator('.codelens-decoration a', { hasText: /^Keep$/ }).count(), 0, 'no Keep lens on a conflict');
        await page.keyboard.press('Control+Alt+Y'); // Agent: Keep Pending Change, on the cursor's hunk
        const warned = await notification(page, 'left pending', 20000);
        assert.match(await warned.innerText(), /Kept 0 hunk/, 'nothing was kept over the typing');
        await closeCenter(page);
        assert.equal(await page.locator('.monaco-editor .view-line', { hasText: 'return a // mine' }).count(), 1, 'the typing is kept');
        assert.equal(fs.readFileSync(file, 'utf8'), CONF, 'nothing kept on disk');
        // The hunk is still pending: the view lists it, and its run's Undo All discards it.
        await palette(page, 'F1', '>Focus on Pending Changes View');
        const row = rows(page, 'conf.go').first();
        await row.waitFor({ timeout: 20000 });
        await rowAction(page, runRow(page), 'Undo All Pending Changes');
        await ctx.waitFor('nothing pending', 20000, async () => (await rows(page, 'conf.go').count()) === 0 && (await keep.count()) === 0);
        assert.equal(await page.locator('.monaco-editor .view-line', { hasText: 'return a // mine' }).count(), 1, 'the typing is still there');
        assert.equal(fs.readFileSync(file, 'utf8'), CONF, 'the discarded hunk never reached the disk');
        // Leave the typing unsaved no longer: closing a dirty editor asks, which would hold the tests after.
        await palette(page, 'F1', '>File: Revert File');
        await ctx.waitFor('the editor clean', 10000, async () => (await page.locator('.tabs-container .tab.dirty').count()) === 0);
      });
    },
  });
}

module.exports = { add };
