// After an approved write command, the open documents of the files it
// changed follow the disk: VS Code reloads a document without unsaved
// changes from its file watcher (the extension does nothing for it), and a
// document with unsaved changes keeps them while a warning names it and
// File: Revert File. add() appends the model turns, the files and the test.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

function add({ files, script, tests, palette, closeAll, idle, notified }) {
  files['notes.txt'] = 'stale notes\n';
  files['draft.txt'] = 'draft on disk\n';
  script.turns.push(
    { tool_calls: [{ name: 'exec', args: { command: "printf 'fresh notes\\n' > notes.txt && printf 'draft by the command\\n' > draft.txt", write: true, reason: 'refresh the notes' } }] },
    { text: 'Notes refreshed.' },
  );

  tests.push({
    name: 'files_changed: an unmodified document reloads, one with unsaved typing keeps it and is named',
    async fn(ctx) {
      const { page, ws } = ctx;
      await closeAll(ctx);
      await idle(page).waitFor({ timeout: 60000 });
      const editorWith = (text) => page.locator('.monaco-editor .view-lines', { hasText: text }).first();
      // draft.txt gets unsaved typing; notes.txt stays as on disk and in front.
      await palette(page, 'Control+p', 'draft.txt');
      await editorWith('draft on disk').waitFor({ timeout: 20000 });
      await page.keyboard.press('Control+End');
      await page.keyboard.type('typed by the user');
      await page.locator('.tabs-container .tab.dirty', { hasText: 'draft.txt' }).waitFor({ timeout: 10000 });
      await palette(page, 'Control+p', 'notes.txt');
      await editorWith('stale notes').waitFor({ timeout: 20000 });
      await palette(page, 'F1', '>Notifications: Clear All Notifications');

      await palette(page, 'F1', '>Agent: Fix This');
      const box = page.locator('.monaco-dialog-box').first();
      await box.waitFor({ timeout: 30000 });
      assert.ok((await box.innerText()).includes('notes.txt'), 'the question names the command');
      await box.getByRole('button', { name: 'Run', exact: true }).click();
      await ctx.waitFor('the command to write notes.txt', 20000, () => fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8') === 'fresh notes\n');

      await editorWith('fresh notes').waitFor({ timeout: 20000 });
      await notified(page, 'changed draft.txt on disk; your unsaved changes are kept', 20000);
      assert.equal(await page.locator('.tabs-container .tab.dirty', { hasText: 'notes.txt' }).count(), 0, 'notes.txt is not dirty after the reload');
      await page.locator('.tabs-container .tab.dirty', { hasText: 'draft.txt' }).waitFor({ timeout: 5000 });
      await page.locator('.tabs-container .tab', { hasText: 'draft.txt' }).click();
      await editorWith('typed by the user').waitFor({ timeout: 10000 });
      // Leave no dirty editor behind for the next test: load the disk version.
      await palette(page, 'F1', '>File: Revert File');
      await editorWith('draft by the command').waitFor({ timeout: 10000 });
      await idle(page).waitFor({ timeout: 20000 });
      await closeAll(ctx);
    },
  });
}

module.exports = { add };
