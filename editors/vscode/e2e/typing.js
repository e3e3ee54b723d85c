// E2E tests of typing during a run, the stale-edit policy (docs/PROTOCOL.md,
// Stale edits): the user types in the document while the agent's edit waits
// in the Refactor Preview. VS Code does not apply an edit pinned to the old
// version; the extension says so (failedChange) and cb-ls merges the edit
// over the typing and asks again, or, when the typing is on the edit's own
// line, tells the model of the conflict. The same behaviour as the Neovim
// suite's typing tests. Added to the scenario by scenario.js.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const TYPING_GO = 'package calc\n\n// Sub returns a minus b.\n//\n// It is used by the tests.\nfunc Sub(a, b int) int {\n\treturn a + b\n}\n';
const CLASH_GO = 'package calc\n\n// Div returns a divided by b.\nfunc Div(a, b int) int {\n\treturn a * b\n}\n';

function add({ files, script, tests, palette, openAt, idle, requests }) {
  files['typing.go'] = TYPING_GO;
  files['clash.go'] = CLASH_GO;
  const first = script.turns.length;
  script.turns.push(
    { tool_calls: [{ name: 'edit_file', args: { path: 'typing.go', old_string: '\treturn a + b', new_string: '\treturn a - b' } }] },
    { text: 'Fixed Sub; your typing is kept.' },
    { tool_calls: [{ name: 'edit_file', args: { path: 'clash.go', old_string: '\treturn a * b', new_string: '\treturn a / b' } }] },
    { text: 'You changed that line yourself; I left it.' },
  );
  const lastResult = (req) => {
    const res = (req.body.messages || []).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
    return res[res.length - 1] || '';
  };
  const log = (ctx) => fs.readFileSync(path.join(ctx.run, 'cb-ls.log'), 'utf8');
  const count = (ctx, re) => (log(ctx).match(re) || []).length;
  const editorText = async (page) => (await page.locator('.monaco-editor .view-lines').first().innerText()).replace(/\s+/g, ' ');

  // typeWhilePreviewed waits for the Refactor Preview of the run's edit,
  // types text at the end of the editor's line holding lineText, and
  // answers the preview: VS Code does not apply an edit whose document
  // moved on: Apply shows VS Code's own "has changed in the meantime", and
  // after its OK the extension reports the edit stale. Returns the panel.
  async function typeWhilePreviewed(ctx, lineText, text) {
    const { page } = ctx;
    const panel = page.locator('.bulk-edit-panel').first();
    await panel.waitFor({ timeout: 30000 });
    const box = checkbox(panel);
    await box.waitFor({ timeout: 10000 });
    await box.click();
    await page.locator('.monaco-editor .view-line', { hasText: lineText }).first().click();
    await page.keyboard.press('End');
    await page.keyboard.type(text);
    await page.locator('.tabs-container .tab.dirty').first().waitFor({ timeout: 10000 });
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    // VS Code itself refuses: "Cannot apply refactoring because 'typing.go'
    // has changed in the meantime." Its OK ends the applyEdit (not applied).
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'has changed in the meantime' }).first();
    await dialog.waitFor({ timeout: 20000 });
    await dialog.getByRole('button', { name: 'OK', exact: true }).click();
    return panel;
  }
  const checkbox = (panel) => panel.locator('.monaco-list-row input.edit-checkbox, .monaco-list-row .monaco-checkbox').first();

  tests.push({
    name: 'typing during a run: the edit is refused as stale, merged over the typing by cb-ls and asked again; both are kept',
    async fn(ctx) {
      const { page, ws, model } = ctx;
      const file = path.join(ws, 'typing.go');
      const merges = count(ctx, /edit merged over the user's typing/g);
      await openAt(ctx, 'typing.go', 7, 'return a + b');
      await palette(page, 'F1', '>Agent: Fix This');
      const panel = await typeWhilePreviewed(ctx, 'package calc', ' // typed during the review');
      // The second review: the merged edit, pinned to the version with the typing.
      await ctx.waitFor('cb-ls to merge the edit over the typing', 30000, () => count(ctx, /edit merged over the user's typing/g) > merges);
      assert.match(log(ctx), /edit not applied[^\n]*typing\.go[^\n]*stale=true/, 'cb-ls saw the refusal as stale');
      await panel.waitFor({ timeout: 30000 });
      await panel.locator('.monaco-list-row', { hasText: 'return a - b' }).first().waitFor({ timeout: 20000 });
      // The first preview's box was ticked; the second one's starts unticked.
      await ctx.waitFor('the second Refactor Preview', 30000, async () => !(await checkbox(panel).isChecked({ timeout: 1000 }).catch(() => true)));
      await checkbox(panel).click();
      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      const want = TYPING_GO.replace('package calc', 'package calc // typed during the review').replace('\treturn a + b', '\treturn a - b');
      await ctx.waitFor('the typing and the fix on disk', 20000, () => fs.readFileSync(file, 'utf8') === want)
        .catch((e) => assert.fail(`${e.message}\ntyping.go:\n${fs.readFileSync(file, 'utf8')}`));
      await ctx.waitFor('the model to hear back after the edit', 20000, () => requests(model.record).length >= first + 2);
      const res = lastResult(requests(model.record)[first + 1]);
      assert.match(res, /^typing\.go changed in the editor while this edit waited for review; the edit was merged with those changes, which were kept\./, `edit_file result: ${res}`);
      assert.doesNotMatch(res, /not applied/, 'the edit landed');
      await idle(page).waitFor({ timeout: 20000 });
    },
  });

  tests.push({
    name: 'typing on the line the edit changes: a conflict, the typing kept, the model told, no second review',
    async fn(ctx) {
      const { page, ws, model } = ctx;
      const file = path.join(ws, 'clash.go');
      const merges = count(ctx, /edit merged over the user's typing/g);
      await openAt(ctx, 'clash.go', 5, 'return a * b');
      await palette(page, 'F1', '>Agent: Fix This');
      await typeWhilePreviewed(ctx, 'return a * b', ' // mine');
      await ctx.waitFor('the model to hear of the conflict', 30000, () => requests(model.record).length >= first + 4);
      const res = lastResult(requests(model.record)[first + 3]);
      assert.match(res, /edit not applied: clash\.go changed in the editor while the edit waited, and the user's changes touch the lines this edit changes/, `edit_file result: ${res}`);
      assert.equal(count(ctx, /edit merged over the user's typing/g), merges, 'nothing was merged or asked again');
      const text = await editorText(page);
      assert.ok(text.includes('return a * b // mine') && !text.includes('a / b'), `the editor holds exactly the typing: ${text}`);
      assert.equal(fs.readFileSync(file, 'utf8'), CLASH_GO, 'nothing written');
      await idle(page).waitFor({ timeout: 20000 });
      // Leave no dirty editor behind for the next test.
      await palette(page, 'F1', '>File: Revert File');
      await ctx.waitFor('clash.go reverted', 10000, async () => (await page.locator('.tabs-container .tab.dirty').count()) === 0);
    },
  });
}

module.exports = { add };
