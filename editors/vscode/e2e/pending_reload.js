// E2E test that pending changes outlive a window reload, with
// catbuddy.review "pending": after Developer: Reload Window the extension
// host and cb-ls start again, the server finds the run's change set on
// disk and notifies it, and the file shows its hunk again (CodeLens, the
// status bar count, the Pending Changes view under the run's title);
// the view's hunk row opens it, and its Keep then lands it. Added after the other pending tests by scenario.js.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const RELOAD = 'package calc\n\n// Sub returns a minus b.\nfunc Sub(a, b int) int {\n\treturn b - a\n}\n';

function add({ files, script, tests, palette, openAt, idle, notified }) {
  files['reload.go'] = RELOAD;
  script.turns.push(
    { tool_calls: [{ name: 'edit_file', args: { path: 'reload.go', old_string: '\treturn b - a', new_string: '\treturn a - b' } }] },
    { text: 'Sub subtracts the right way round now.' },
  );
  const keep = (page) => page.locator('.codelens-decoration a', { hasText: 'Keep' });
  // pending reads the status bar's count (0 when it shows none).
  async function pending(page) {
    const items = await page.locator('.statusbar-item', { hasText: /\d+ pending/ }).allInnerTexts();
    return items.length === 0 ? 0 : Number(/(\d+) pending/.exec(items[0])[1]);
  }

  tests.push({
    name: 'pending changes after a window reload: the hunk is shown again and can be kept',
    async fn(ctx) {
      const { page, ws } = ctx;
      const file = path.join(ws, 'reload.go');
      const before = fs.readFileSync(ctx.userSettings, 'utf8');
      fs.writeFileSync(ctx.userSettings, JSON.stringify({ ...JSON.parse(before), 'catbuddy.review': 'pending' }, null, 2));
      try {
        await idle(page).waitFor({ timeout: 30000 });
        await palette(page, 'F1', '>Notifications: Clear All Notifications');
        await openAt(ctx, 'reload.go', 5, 'return b - a');
        await palette(page, 'F1', '>Agent: Fix This');
        await notified(page, '1 file changed — pending review', 60000);
        await ctx.waitFor('one Keep CodeLens', 20000, async () => (await keep(page).count()) === 1);
        const shown = await ctx.waitFor('the status bar count', 10000, () => pending(page));

        const logFile = path.join(ctx.run, 'cb-ls.log');
        const inits = () => (fs.readFileSync(logFile, 'utf8').match(/msg=initialized/g) || []).length;
        const initsBefore = inits();
        await palette(page, 'F1', '>Developer: Reload Window');
        await ctx.waitFor('a new cb-ls initialized', 120000, () => inits() > initsBefore);
        await page.locator('.monaco-workbench').waitFor({ timeout: 120000 });
        await idle(page).waitFor({ timeout: 60000 });
        assert.equal(fs.readFileSync(file, 'utf8'), RELOAD, 'nothing on disk while pending');

        await openAt(ctx, 'reload.go', 5, 'return b - a');
        await ctx.waitFor('the Keep CodeLens again', 30000, async () => (await keep(page).count()) === 1);
        await ctx.waitFor(`the status bar count again (${shown})`, 20000, async () => (await pending(page)) === shown);
        // The Pending Changes view names the run by its title, which the set found at start lacks.
        await palette(page, 'F1', '>Focus on Pending Changes View');
        const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Pending Changes' }) }).first();
        await pane.locator('.monaco-list-row', { hasText: 'Fix This' }).first().waitFor({ timeout: 20000 });
        await pane.locator('.monaco-list-row', { hasText: 'reload.go' }).first().waitFor({ timeout: 20000 });

        // The hunk's row opens the file at the hunk; its CodeLens keeps it.
        // (The side bar taking the focus must not cost the editor its lenses.)
        const hunkRow = pane.locator('.monaco-list-row', { hasText: 'return a - b' }).first();
        await hunkRow.waitFor({ timeout: 20000 });
        await hunkRow.click();
        await page.locator('.tabs-container .tab.active', { hasText: 'reload.go' }).first().waitFor({ timeout: 20000 });
        // One lens the user can click. VS Code redraws an editor's lenses
        // from its cache (text, not links) whenever a CodeLens provider
        // registers, as extensions do for a while after a reload, and asks
        // the providers again only while the editor has the focus; the
        // hunk's row leaves the focus in the view. So, as a user's first
        // click would, put the focus in the editor, then wait for the link.
        // If there is none, the error says what the CodeLens elements held.
        await page.locator('.monaco-editor .view-line', { hasText: 'package calc' }).first().click();
        const shownKeep = page.locator('.codelens-decoration a:visible', { hasText: 'Keep' });
        await ctx.waitFor('one visible Keep CodeLens with the file open from the view', 30000, async () => {
          const [all, visible] = [await keep(page).count(), await shownKeep.count()];
          if (visible !== 1) {
            const lenses = await page.locator('.codelens-decoration').evaluateAll((els) => els.map((e) => `${e.innerHTML.slice(0, 200)}${e.checkVisibility() ? '' : ' (hidden)'}`));
            throw new Error(`${all} Keep lenses in the page, ${visible} visible; the CodeLens elements: ${JSON.stringify(lenses)}`);
          }
          return true;
        });
        await shownKeep.first().click();
        await ctx.waitFor('the hunk kept on disk', 20000, () => fs.readFileSync(file, 'utf8') === RELOAD.replace('b - a', 'a - b'));
        await ctx.waitFor('nothing pending', 20000, async () => (await keep(page).count()) === 0);
      } finally {
        fs.writeFileSync(ctx.userSettings, before);
      }
    },
  });
}

module.exports = { add };
