// E2E test of pending changes in VS Code, driven and asserted from
// editors/testdata/pending_flow.json (which the Neovim e2e suite and the
// server's fake-editor test assert too): with catbuddy.review "pending" a
// run that edits two files (one through a writing command) never opens the
// Refactor Preview nor a dialog; the CodeLens Keep / Undo and the inline
// decorations appear; Keep on one hunk lands only that hunk on disk, and
// Undo All Pending Changes in each file discards the rest. Then typing
// inside a pending hunk, then Keep, leaves it pending and keeps the typing.
// Added last to the scenario by scenario.js: the script's turns are
// consumed in order.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');
const { isDeepStrictEqual } = require('node:util');

const fx = JSON.parse(fs.readFileSync(path.join(__dirname, '../../testdata/pending_flow.json'), 'utf8'));

// disk returns what the files named in want hold on disk, by name.
function disk(ws, want) {
  const out = {};
  for (const name of Object.keys(want)) {
    const f = path.join(ws, name);
    out[name] = fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : null;
  }
  return out;
}

function add({ files, script, tests, palette, openAt, idle, notified, notification, notices, closeCenter }) {
  Object.assign(files, fx.files, fx.conflict.files);
  script.turns.push(...fx.turns, ...fx.conflict.turns);

  // withPending runs fn with catbuddy.review "pending" in the user settings.
  async function withPending(ctx, fn) {
    const before = fs.readFileSync(ctx.userSettings, 'utf8');
    fs.writeFileSync(ctx.userSettings, JSON.stringify({ ...JSON.parse(before), 'catbuddy.review': 'pending' }, null, 2));
    try {
      await idle(ctx.page).waitFor({ timeout: 30000 });
      // An earlier run's end notification must not stand for this one's.
      await palette(ctx.page, 'F1', '>Notifications: Clear All Notifications');
      await fn();
    } finally {
      fs.writeFileSync(ctx.userSettings, before);
    }
  }
  const keep = (page) => page.locator('.codelens-decoration a', { hasText: 'Keep' });
  const count = (page, n) => page.locator('.statusbar-item', { hasText: `${n} pending` }).first();

  tests.push({
    name: 'pending changes (shared fixture): no Refactor Preview; CodeLens Keep lands one hunk; Undo All discards the rest',
    async fn(ctx) {
      const { page, ws } = ctx;
      await withPending(ctx, async () => {
        await openAt(ctx, fx.start.file, fx.start.line, fx.start.shows);
        await palette(page, 'F1', '>Agent: Fix This');
        const ended = await notification(page, `${fx.changedFiles} files changed — pending review`, 60000);
        // Nothing is on disk yet: the end offers review, not Undo, and says it once.
        const buttons = (await ended.locator('.notification-list-item-buttons-container .monaco-button').allInnerTexts()).map((t) => t.trim());
        assert.deepEqual(buttons, ['Review', 'Keep All', 'Undo All'], 'the end of a pending run offers review only');
        assert.equal(await notices(page, 'Agent: done').count(), 0, 'no "done — changed" notification with Undo');
        await closeCenter(page);
        assert.equal(await page.locator('.bulk-edit-panel').count(), 0, 'no Refactor Preview during the run');
        assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'no modal dialog during the run');
        assert.deepEqual(disk(ws, fx.files), fx.files, 'nothing on disk while pending');
        const lenses = fx.pending[fx.start.file];
        await ctx.waitFor(`${lenses} Keep CodeLenses`, 20000, async () => (await keep(page).count()) === lenses);
        await page.locator('.codelens-decoration a', { hasText: 'Undo' }).first().waitFor({ timeout: 5000 });
        await count(page, fx.count).waitFor({ timeout: 10000 });
        await page.waitForTimeout(300); // let the decorations render for the screenshot; nothing is synchronised on it
        const shot = path.join(ctx.art, 'vscode-pending.png');
        await page.screenshot({ path: shot });
        if (process.env.PENDING_SHOT) {
          fs.copyFileSync(shot, process.env.PENDING_SHOT);
        }
        // The lenses are in line order: the fixture's hunk is the nth.
        await keep(page).nth(fx.keep.hunk - 1).click();
        await ctx.waitFor('only the kept hunk on disk', 20000, () => isDeepStrictEqual(disk(ws, fx.keep.disk), fx.keep.disk));
        await count(page, fx.countAfterKeep).waitFor({ timeout: 10000 });
        for (const [i, step] of fx.undoAll.entries()) {
          if (i > 0) {
            await openAt(ctx, step.file, 1, step.shows);
          }
          await palette(page, 'F1', '>Agent: Undo All Pending Changes');
          if (step.count > 0) {
            await count(page, step.count).waitFor({ timeout: 20000 });
          } else {
            await ctx.waitFor('nothing pending', 20000, async () => (await keep(page).count()) === 0);
          }
        }
        assert.deepEqual(disk(ws, fx.disk), fx.disk, 'the undone hunks never reached the disk');
      });
    },
  });

  tests.push({
    name: 'pending changes (shared fixture): typing inside a hunk, then Keep, leaves it pending and keeps the typing',
    async fn(ctx) {
      const { page, ws } = ctx;
      const cf = fx.conflict;
      await withPending(ctx, async () => {
        await openAt(ctx, cf.start.file, cf.start.line, cf.start.shows);
        await palette(page, 'F1', '>Agent: Fix This');
        await notified(page, '1 file changed — pending review', 60000);
        await keep(page).first().waitFor({ timeout: 20000 });
        // Type at the end of the hunk's line (the cursor is on it).
        await page.locator('.monaco-editor .view-line', { hasText: cf.start.shows }).first().click();
        await page.keyboard.press('End');
        await page.keyboard.type(cf.type);
        await page.locator('.tabs-container .tab.dirty').first().waitFor({ timeout: 10000 });
        // The server marks the hunk in conflict: its lenses are the resolutions,
        // with no Keep; Agent: Keep Pending Change (the cursor is on the line) still asks.
        await page.locator('.codelens-decoration a', { hasText: 'Keep Both' }).first().waitFor({ timeout: 20000 });
        assert.equal(await page.locator('.codelens-decoration a', { hasText: /^Keep$/ }).count(), 0, 'no Keep lens on a conflict');
        await page.keyboard.press('Control+Alt+Y'); // Agent: Keep Pending Change, on the cursor's hunk
        const warned = await notification(page, cf.left, 20000);
        assert.match(await warned.innerText(), /Kept 0 hunk/, 'nothing was kept over the typing');
        await closeCenter(page);
        const typed = cf.typed.trim();
        assert.equal(await page.locator('.monaco-editor .view-line', { hasText: typed }).count(), 1, 'the typing is kept');
        assert.deepEqual(disk(ws, cf.disk), cf.disk, 'nothing kept on disk');
        // Leave nothing pending (and the typing unsaved) for the tests after.
        await palette(page, 'F1', '>Agent: Undo All Pending Changes');
        await ctx.waitFor('nothing pending', 20000, async () => (await keep(page).count()) === 0);
        await palette(page, 'F1', '>File: Revert File');
        await ctx.waitFor('the editor clean', 10000, async () => (await page.locator('.tabs-container .tab.dirty').count()) === 0);
      });
    },
  });
}

module.exports = { add };
