// E2E test of a run's pending changes in the chat view, with
// catbuddy.review "pending": the run's message shows its pending count
// ("2 changes pending in 2 files") with Keep All, Undo All and Review,
// redrawn on every catbuddy/pendingChanges notification (a Keep from the
// CodeLens lowers it); Review opens the diff editor; Keep All keeps the
// rest, the bar goes and the diff editor, with nothing left to review,
// closes. Added after the other pending tests by scenario.js.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const CHAT_A = 'package calc\n\n// Twice returns 2a.\nfunc Twice(a int) int {\n\treturn a + 2\n}\n';
const CHAT_B = 'package calc\n\n// Thrice returns 3a.\nfunc Thrice(a int) int {\n\treturn a + 3\n}\n';

const chat = (page) => page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');

function add({ files, script, tests, palette, openAt, idle, notified }) {
  files['chat_a.go'] = CHAT_A;
  files['chat_b.go'] = CHAT_B;
  script.turns.push(
    { tool_calls: [{ name: 'edit_file', args: { path: 'chat_a.go', old_string: '\treturn a + 2', new_string: '\treturn a * 2' } }] },
    { tool_calls: [{ name: 'edit_file', args: { path: 'chat_b.go', old_string: '\treturn a + 3', new_string: '\treturn a * 3' } }] },
    { text: 'Twice and Thrice multiply now.' },
  );

  tests.push({
    name: 'pending changes in the chat: the run shows its count with Keep All / Undo All / Review, updated on every change',
    async fn(ctx) {
      const { page, ws } = ctx;
      const before = fs.readFileSync(ctx.userSettings, 'utf8');
      fs.writeFileSync(ctx.userSettings, JSON.stringify({ ...JSON.parse(before), 'catbuddy.review': 'pending' }, null, 2));
      try {
        await idle(page).waitFor({ timeout: 30000 });
        await palette(page, 'F1', '>Notifications: Clear All Notifications');
        await openAt(ctx, 'chat_a.go', 5, 'return a + 2');
        await palette(page, 'F1', '>Agent: Fix This');
        await notified(page, '2 files changed — pending review', 60000);
        // The run is shown in the chat view (revealChat), its count under its last message.
        const bar = chat(page).locator('.pending-bar');
        await bar.locator('.pending-text', { hasText: '2 changes pending in 2 files' }).waitFor({ timeout: 20000 });
        const buttons = (await bar.locator('button').allInnerTexts()).map((t) => t.trim());
        assert.deepEqual(buttons, ['Keep All', 'Undo All', 'Review']);
        assert.equal(await chat(page).locator('#log > :last-child.pending-bar').count(), 1, 'the bar is the run\'s last row');
        await page.waitForTimeout(300); // let the view settle for the screenshot; nothing is synchronised on it
        await page.screenshot({ path: path.join(ctx.art, 'vscode-pending-chat.png') });

        // A keep elsewhere (the CodeLens) lowers the count.
        await page.locator('.codelens-decoration a', { hasText: 'Keep' }).first().click();
        await ctx.waitFor('chat_a.go kept on disk', 20000, () => fs.readFileSync(path.join(ws, 'chat_a.go'), 'utf8') === CHAT_A.replace('a + 2', 'a * 2'));
        await bar.locator('.pending-text', { hasText: '1 change pending in 1 file' }).waitFor({ timeout: 20000 });

        // Review: the diff editor of what is left (chat_b.go), current against pending.
        await bar.getByRole('button', { name: 'Review', exact: true }).click();
        const diffTab = page.locator('.tabs-container .tab', { hasText: 'chat_b.go: current ↔ pending' }).first();
        await diffTab.waitFor({ timeout: 20000 });
        await page.locator('.editor.modified .view-line', { hasText: 'return a * 3' }).first().waitFor({ timeout: 20000 });
        assert.equal(fs.readFileSync(path.join(ws, 'chat_b.go'), 'utf8'), CHAT_B, 'nothing on disk from reviewing');

        // Keep All keeps the rest: no bar, and the diff editor, with nothing left in it, closes.
        await bar.getByRole('button', { name: 'Keep All', exact: true }).click();
        await ctx.waitFor('chat_b.go kept on disk', 20000, () => fs.readFileSync(path.join(ws, 'chat_b.go'), 'utf8') === CHAT_B.replace('a + 3', 'a * 3'));
        await ctx.waitFor('the bar gone', 20000, async () => (await bar.count()) === 0 || !(await bar.isVisible()));
        await ctx.waitFor('the diff editor closed', 20000, async () => (await diffTab.count()) === 0);
      } finally {
        fs.writeFileSync(ctx.userSettings, before);
      }
    },
  });
}

module.exports = { add };
