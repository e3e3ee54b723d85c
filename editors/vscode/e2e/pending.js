// E2E test of pending changes in VS Code: with catbuddy.review "pending" a
// run's two edits never open the Refactor Preview; the CodeLens Keep / Undo
// and the inline decorations appear; Keep on one hunk lands only that hunk
// on disk, and Undo All Pending Changes discards the rest. Added last to the
// scenario by scenario.js: the script's turns are consumed in order.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const PEND_GO = 'package calc\n\n// Mul returns a times b.\nfunc Mul(a, b int) int {\n\treturn a + b\n}\n\n// Div returns a over b.\nfunc Div(a, b int) int {\n\treturn a * b\n}\n';

function add({ files, script, tests, palette, openAt, idle }) {
  files['pend.go'] = PEND_GO;
  script.turns.push(
    { tool_calls: [{ name: 'edit_file', args: { path: 'pend.go', old_string: '\treturn a + b', new_string: '\treturn a * b' } }] },
    { tool_calls: [{ name: 'edit_file', args: { path: 'pend.go', old_string: 'func Div(a, b int) int {\n\treturn a * b', new_string: 'func Div(a, b int) int {\n\treturn a / b' } }] },
    { text: 'Fixed Mul and Div.' },
  );

  tests.push({
    name: 'pending changes: no Refactor Preview; CodeLens Keep lands one hunk; Undo All discards the rest',
    async fn(ctx) {
      const { page, ws } = ctx;
      const file = path.join(ws, 'pend.go');
      const settingsFile = ctx.userSettings;
      const before = fs.readFileSync(settingsFile, 'utf8');
      fs.writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(before), 'catbuddy.review': 'pending' }, null, 2));
      try {
        await idle(page).waitFor({ timeout: 30000 });
        await openAt(ctx, 'pend.go', 5, 'return a + b');
        await palette(page, 'F1', '>Notifications: Clear All Notifications');
        await palette(page, 'F1', '>Agent: Fix This');
        const ended = page.locator('.notifications-toasts .notification-toast', { hasText: 'pending review' }).first();
        await ended.waitFor({ timeout: 60000 });
        // Nothing is on disk yet: the end offers review, not Undo, and says it once.
        const buttons = (await ended.locator('.notification-list-item-buttons-container .monaco-button').allInnerTexts()).map((t) => t.trim());
        assert.deepEqual(buttons, ['Review', 'Keep All', 'Undo All'], 'the end of a pending run offers review only');
        assert.equal(await page.locator('.notifications-toasts .notification-toast', { hasText: 'Agent: done' }).count(), 0, 'no "done — changed" notification with Undo');
        assert.equal(await page.locator('.bulk-edit-panel').count(), 0, 'no Refactor Preview during the run');
        assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'no modal dialog during the run');
        assert.equal(fs.readFileSync(file, 'utf8'), PEND_GO, 'nothing on disk while pending');
        const keep = page.locator('.codelens-decoration a', { hasText: 'Keep' });
        await ctx.waitFor('two Keep CodeLenses', 20000, async () => (await keep.count()) === 2);
        await page.locator('.codelens-decoration a', { hasText: 'Undo' }).first().waitFor({ timeout: 5000 });
        await page.locator('.statusbar-item', { hasText: '2 pending' }).first().waitFor({ timeout: 10000 });
        await page.waitForTimeout(300); // let the decorations render for the screenshot; nothing is synchronised on it
        const shot = path.join(ctx.art, 'vscode-pending.png');
        await page.screenshot({ path: shot });
        if (process.env.PENDING_SHOT) {
          fs.copyFileSync(shot, process.env.PENDING_SHOT);
        }
        await keep.first().click();
        const want = PEND_GO.replace('\treturn a + b', '\treturn a * b');
        await ctx.waitFor('only the kept hunk on disk', 20000, () => fs.readFileSync(file, 'utf8') === want);
        await page.locator('.statusbar-item', { hasText: '1 pending' }).first().waitFor({ timeout: 10000 });
        await palette(page, 'F1', '>Agent: Undo All Pending Changes');
        await ctx.waitFor('nothing pending', 20000, async () => (await keep.count()) === 0);
        assert.equal(fs.readFileSync(file, 'utf8'), want, 'the undone hunk never reached the disk');
      } finally {
        fs.writeFileSync(settingsFile, before);
      }
    },
  });
}

module.exports = { add };
