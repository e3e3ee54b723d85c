// E2E test of "Review in Diff Editor", with catbuddy.review "pending":
// the diff editor shows the file as it is against a read-only virtual
// document with the pending hunks kept (typing there changes nothing);
// in it, Keep Pending Change on the cursor's hunk lands that hunk alone
// and the diff follows; the editor title's Undo All Pending Changes
// discards the rest, and the diff editor, with nothing left, closes.
// Added after the other pending tests by scenario.js.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const DIFF = 'package calc\n\n// Min returns the smaller.\nfunc Min(a, b int) int {\n\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}\n\n// Max returns the larger.\nfunc Max(a, b int) int {\n\tif a < b {\n\t\treturn a\n\t}\n\treturn b\n}\n';

function add({ files, script, tests, palette, openAt, idle, notified }) {
  files['diff.go'] = DIFF;
  script.turns.push(
    { tool_calls: [{ name: 'edit_file', args: { path: 'diff.go', old_string: '\tif a > b {', new_string: '\tif a < b {' } }] },
    { tool_calls: [{ name: 'edit_file', args: { path: 'diff.go', old_string: 'func Max(a, b int) int {\n\tif a < b {', new_string: 'func Max(a, b int) int {\n\tif a > b {' } }] },
    { text: 'Min and Max compare the right way round now.' },
  );
  const kept = DIFF.replace('\tif a > b {', '\tif a < b {');

  tests.push({
    name: 'pending changes in the diff editor: read-only pending side; Keep on one hunk; the title\'s Undo All; the diff closes',
    async fn(ctx) {
      const { page, ws } = ctx;
      const file = path.join(ws, 'diff.go');
      const before = fs.readFileSync(ctx.userSettings, 'utf8');
      fs.writeFileSync(ctx.userSettings, JSON.stringify({ ...JSON.parse(before), 'catbuddy.review': 'pending' }, null, 2));
      try {
        await idle(page).waitFor({ timeout: 30000 });
        await palette(page, 'F1', '>Notifications: Clear All Notifications');
        await openAt(ctx, 'diff.go', 5, 'if a > b');
        await palette(page, 'F1', '>Agent: Fix This');
        await notified(page, '1 file changed — pending review', 60000);
        await ctx.waitFor('two Keep CodeLenses', 20000, async () => (await page.locator('.codelens-decoration a', { hasText: 'Keep' }).count()) === 2);

        await palette(page, 'F1', '>Agent: Review Pending Changes in Diff Editor');
        const tab = page.locator('.tabs-container .tab', { hasText: 'diff.go: current ↔ pending' }).first();
        await tab.waitFor({ timeout: 20000 });
        const modified = page.locator('.editor.modified');
        const original = page.locator('.editor.original');
        // Max's comparison is the one both sides differ on last: "if a > b" twice on the right.
        await ctx.waitFor('the pending side with both hunks kept', 20000, async () => {
          const t = (await modified.first().innerText()).replace(/\s+/g, ' ');
          return t.includes('Min(a, b int) int { if a < b {') && t.includes('Max(a, b int) int { if a > b {');
        });
        const left = (await original.first().innerText()).replace(/\s+/g, ' ');
        assert.ok(left.includes('Min(a, b int) int { if a > b {'), `the left side is the file as it is: ${left}`);
        // The inline decorations stay out of the diff's left side.
        await ctx.waitFor('no inline pending text on the left', 10000, async () => !(await original.first().innerText()).includes('+ if a < b'));
        await page.waitForTimeout(300); // let the diff render for the screenshot; nothing is synchronised on it
        await page.screenshot({ path: path.join(ctx.art, 'vscode-pending-diff.png') });

        // The pending side is read-only: typing there changes nothing.
        await modified.locator('.view-line', { hasText: 'Max(a, b int)' }).first().click();
        await page.keyboard.type('zz');
        assert.equal(await page.locator('.tabs-container .tab.dirty').count(), 0, 'no editor is dirty');
        assert.equal(await modified.locator('.view-line', { hasText: 'zz' }).count(), 0, 'the pending side took no typing');

        // Keep the hunk under the cursor (Min's line, on the pending side): only it lands.
        await modified.locator('.view-line', { hasText: 'if a < b' }).first().click();
        await page.keyboard.press('Control+Alt+Y'); // Agent: Keep Pending Change
        await ctx.waitFor('Min\'s hunk alone on disk', 20000, () => fs.readFileSync(file, 'utf8') === kept);
        await ctx.waitFor('the left side follows', 20000, async () => (await original.first().innerText()).replace(/\s+/g, ' ').includes('Min(a, b int) int { if a < b {'));
        await tab.waitFor({ timeout: 5000 });

        // The diff editor's title: Undo All Pending Changes discards the rest, and the diff closes.
        await modified.locator('.view-line', { hasText: 'Max(a, b int)' }).first().click();
        const undo = page.locator('.editor-actions .action-label[aria-label^="Undo All Pending Changes"]').first();
        await undo.waitFor({ timeout: 10000 });
        assert.equal(await page.locator('.editor-actions .action-label[aria-label^="Review Pending Changes in Diff Editor"]').count(), 0, 'no Review button inside the review');
        await undo.click();
        await ctx.waitFor('the diff editor closed', 20000, async () => (await tab.count()) === 0);
        assert.equal(fs.readFileSync(file, 'utf8'), kept, 'the discarded hunk never reached the disk');
        await ctx.waitFor('nothing pending', 20000, async () => (await page.locator('.statusbar-item', { hasText: /\d+ pending/ }).count()) === 0);
      } catch (e) {
        // Leave nothing pending for the tests after this one.
        await openAt(ctx, 'diff.go', 1, 'package calc').catch(() => {});
        await palette(page, 'F1', '>Agent: Undo All Pending Changes').catch(() => {});
        throw e;
      } finally {
        fs.writeFileSync(ctx.userSettings, before);
      }
    },
  });
}

module.exports = { add };
