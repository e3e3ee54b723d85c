// E2E tests of per-hunk review and undo: the user unticks one hunk of an
// edit in the Refactor Preview, and the model's next request says which
// hunk was rejected; "Agent: Undo Last Run" then puts the file back.
// Added to the scenario by scenario.js, after the other tests: the script's
// turns are consumed in order.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const HUNKS_GO = 'package calc\n\n// Sub returns a minus b.\nfunc Sub(a, b int) int {\n\treturn a + b\n}\n\n// Neg returns -a.\nfunc Neg(a int) int {\n\treturn a\n}\n';

function add({ files, script, tests, palette, openAt, idle, requests, notified }) {
  files['hunks.go'] = HUNKS_GO;
  const turns = [
    {
      tool_calls: [{
        name: 'multi_edit',
        args: { path: 'hunks.go', edits: [{ old_string: '\treturn a + b', new_string: '\treturn a - b' }, { old_string: '\treturn a\n', new_string: '\treturn -a\n' }] },
      }],
    },
    { text: 'Fixed Sub; Neg was left as the user chose.' },
  ];
  script.turns.push(...turns);
  // The tool results of a recorded request, as text.
  const toolResults = (req) => (req.body.messages || []).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));

  tests.push({
    name: 'Refactor Preview: one hunk unticked, the model is told which; Undo Last Run restores the file',
    async fn(ctx) {
      const { page, ws, model } = ctx;
      const file = path.join(ws, 'hunks.go');
      const seen = requests(model.record).length;
      await openAt(ctx, 'hunks.go', 5, 'return a + b');
      await palette(page, 'F1', '>Agent: Fix This');
      const panel = page.locator('.bulk-edit-panel').first();
      await panel.waitFor({ timeout: 30000 });
      // Each hunk is its own row with its own checkbox. Tick the first only.
      const row = panel.locator('.monaco-list-row', { hasText: 'return a - b' }).first();
      await row.waitFor({ timeout: 10000 });
      assert.equal(await panel.locator('.monaco-list-row', { hasText: 'return -a' }).count(), 1, 'the second hunk has its own row');
      await row.locator('input.edit-checkbox, .monaco-checkbox').first().click();
      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      const want = HUNKS_GO.replace('\treturn a + b', '\treturn a - b');
      await ctx.waitFor('only the ticked hunk on disk', 20000, () => fs.readFileSync(file, 'utf8') === want);
      await ctx.waitFor('the model to hear back after the edit', 20000, () => requests(model.record).length >= seen + 2);
      const res = toolResults(requests(model.record)[seen + 1]);
      const last = res[res.length - 1] || '';
      assert.match(last, /Applied 1 of 2 hunks to hunks\.go; the user rejected hunk 2 \(line 10: "return a" → "return -a"\)/, `tool result: ${last}`);
      await idle(page).waitFor({ timeout: 20000 });

      await palette(page, 'F1', '>Agent: Undo Last Run');
      await panel.waitFor({ timeout: 30000 });
      // The undo is reviewed like any edit: its hunk puts "return a + b" back.
      const undoRow = panel.locator('.monaco-list-row', { hasText: 'return a + b' }).first();
      await undoRow.waitFor({ timeout: 30000 });
      await undoRow.locator('input.edit-checkbox, .monaco-checkbox').first().click();
      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      await ctx.waitFor('hunks.go restored on disk', 20000, () => fs.readFileSync(file, 'utf8') === HUNKS_GO);
      await notified(page, 'Undid run', 20000);
    },
  });
}

module.exports = { add };
