// Scenarios of exec's question: a command that asks to change files is shown
// as a modal dialog naming the command, its directory and the model's reason.
// Run runs it and the model hears which files it created; Reject, or the
// dialog dismissed, runs nothing and the model hears it was rejected.
// add() appends the model turns and tests to the scenario's, after those
// already there.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

// lastToolResult is the last tool message of recorded request n.
function lastToolResult(requests, record, n) {
  const msgs = (requests(record)[n].body.messages || []).filter((m) => m.role === 'tool');
  const last = msgs[msgs.length - 1];
  return last ? (typeof last.content === 'string' ? last.content : JSON.stringify(last.content)) : '';
}

function add({ script, tests, palette, openAt, closeAll, idle, requests, notified }) {
  const first = script.turns.length; // the index of this file's first model request
  script.turns.push(
    { tool_calls: [{ name: 'exec', args: { command: 'cp calc.go calc_copy.go', write: true, reason: 'keep a copy before the rewrite' } }] },
    { text: 'Copied calc.go.' },
    { tool_calls: [{ name: 'exec', args: { command: 'rm mul.go', write: true, reason: 'mul.go is unused' } }] },
    { text: 'mul.go was kept.' },
    { tool_calls: [{ name: 'exec', args: { command: 'rm mul.go', write: true, reason: 'mul.go is unused' } }] },
    { text: 'mul.go was kept again.' },
  );

  const dialog = (page) => page.locator('.monaco-dialog-box').first();

  tests.push(
    {
      name: 'exec asks in a modal dialog before a command writes; Run runs it',
      async fn(ctx) {
        const { page, ws, model } = ctx;
        const copy = path.join(ws, 'calc_copy.go');
        await idle(page).waitFor({ timeout: 60000 });
        await openAt(ctx, 'calc.go', 5, 'return a');
        await palette(page, 'F1', '>Notifications: Clear All Notifications');
        await palette(page, 'F1', '>Agent: Fix This');
        const box = dialog(page);
        await box.waitFor({ timeout: 30000 });
        const text = await box.innerText();
        assert.match(text, /Run this command\? It may change files in the workspace\./);
        for (const want of ['cp calc.go calc_copy.go', `in ${ws}`, 'Reason: keep a copy before the rewrite']) {
          assert.ok(text.includes(want), `the dialog names ${want}: ${text}`);
        }
        for (const name of ['Run', 'Always allow "cp"', 'Reject']) {
          await box.getByRole('button', { name, exact: true }).waitFor({ timeout: 5000 });
        }
        assert.ok(!fs.existsSync(copy), 'nothing runs before the answer');
        const shot = path.join(ctx.art, 'vscode-exec-approval.png');
        await page.screenshot({ path: shot });
        if (ctx.docsShot) {
          fs.copyFileSync(shot, path.join(path.dirname(ctx.docsShot), 'vscode-exec-approval.png'));
        }
        await box.getByRole('button', { name: 'Run', exact: true }).click();
        await ctx.waitFor('calc_copy.go written by the command', 20000, () => fs.existsSync(copy));
        await ctx.waitFor('the model to hear back after the command', 20000, () => requests(model.record).length >= first + 2);
        const res = lastToolResult(requests, model.record, first + 1);
        assert.match(res, /\[approved by the user\]/, res);
        assert.match(res, /created\s+calc_copy\.go/, `the model hears which file the command created: ${res}`);
        await idle(page).waitFor({ timeout: 20000 });
        // The one end notification counts the file the approved command created.
        await notified(page, 'Agent: done — 1 file changed', 20000);
      },
    },
    // Reject, and the dialog dismissed (Escape), which is a rejection too.
    ...[['Reject', 'the Reject button'], ['Escape', 'Escape']].map(([answer, how], i) => ({
      name: `exec: ${answer === 'Reject' ? 'Reject' : 'a dismissed question'} runs nothing and the model is told`,
      async fn(ctx) {
        const { page, ws, model } = ctx;
        const mul = path.join(ws, 'mul.go');
        const n = first + 3 + 2 * i; // the request that carries this command's result
        await openAt(ctx, 'calc.go', 5, 'return a');
        await palette(page, 'F1', '>Agent: Fix This');
        const box = dialog(page);
        await box.waitFor({ timeout: 30000 });
        assert.ok((await box.innerText()).includes('rm mul.go'));
        if (answer === 'Escape') {
          await page.keyboard.press('Escape');
        } else {
          await box.getByRole('button', { name: answer, exact: true }).click();
        }
        await box.waitFor({ state: 'hidden', timeout: 10000 });
        await ctx.waitFor(`the model to hear back after ${how}`, 20000, () => requests(model.record).length >= n + 1);
        const res = lastToolResult(requests, model.record, n);
        assert.match(res, /the user rejected running this command; nothing ran/, res);
        assert.ok(fs.existsSync(mul), 'mul.go is still there');
        await idle(page).waitFor({ timeout: 20000 });
        await closeAll(ctx);
      },
    })),
  );
}

module.exports = { add };
