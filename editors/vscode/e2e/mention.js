// The agent's input completes workspace paths after "@": Escape runs
// nothing; typing "explain @calc" lists calc.go, Enter on it writes
// "@calc.go " into the input and keeps it open, and Enter again submits;
// the server expands the mention, so the model's request holds the file's
// text. add() appends the model turn and the test to the scenario's.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

// assertMentioned checks that body (a model request's user messages, as
// JSON) holds the workspace file's every non-empty line, as the server's
// "Mentioned files" section brings it.
function assertMentioned(body, ws, file) {
  assert.match(body, /Mentioned files/, 'the server expanded the mention');
  for (const line of fs.readFileSync(path.join(ws, file), 'utf8').split('\n').filter((l) => l.trim() !== '')) {
    assert.ok(body.includes(JSON.stringify(line).slice(1, -1)), `${file}'s line ${JSON.stringify(line)} reaches the model`);
  }
}

function add({ script, tests, palette, openAt, idle, requests }) {
  const first = script.turns.length; // the index of this file's model request
  script.turns.push({ text: 'calc.go holds Add, which returns a + b.' });

  tests.push({
    name: 'Ask: @ offers workspace files; the picked path goes into the input and the file reaches the model',
    async fn(ctx) {
      const { page, ws, model } = ctx;
      await openAt(ctx, 'calc.go', 4, 'func Add');
      // Ours, not the command palette that opened it: the placeholder says so.
      const input = page.locator('.quick-input-widget input[placeholder*="@ adds a file"]');

      await palette(page, 'F1', '>Agent: Ask');
      await input.waitFor({ state: 'visible', timeout: 15000 });
      await input.pressSequentially('never sent');
      await page.keyboard.press('Escape');
      await input.waitFor({ state: 'hidden', timeout: 10000 });

      await palette(page, 'F1', '>Agent: Ask');
      await input.waitFor({ state: 'visible', timeout: 15000 });
      await input.pressSequentially('explain @calc');
      // The list follows the typing ("@" lists every file): wait for the one for "calc".
      // calc_copy.go (from the exec test) matches too; calc.go, the better match, comes first.
      // node_modules/calc-helper/calc.js is in the workspace but search.exclude hides it.
      const rows = page.locator('.quick-input-list .monaco-list-row');
      let shown = [];
      await ctx.waitFor('the files matching "calc"', 20000, async () => {
        shown = (await rows.allInnerTexts()).map((t) => t.trim().split(/\s/)[0]);
        return shown.join(' ') === 'calc.go calc_copy.go';
      }).catch((e) => assert.fail(`${e.message}; the list shows: ${shown.join(', ')}`));
      await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: 'calc.go' }).first().waitFor({ timeout: 5000 });
      await page.screenshot({ path: path.join(ctx.art, 'vscode-mention-completion.png') });
      await page.keyboard.press('Enter');
      await ctx.waitFor('the picked path in the input', 10000, async () => (await input.inputValue()) === 'explain @calc.go ');
      await ctx.waitFor('the file list closed after the pick', 10000, async () => (await page.locator('.quick-input-list .monaco-list-row').count()) === 0);
      assert.equal(requests(model.record).length, first, 'nothing is sent before the input is submitted');
      await page.keyboard.press('Enter');

      await ctx.waitFor('the Ask request', 20000, () => requests(model.record).length >= first + 1);
      const user = requests(model.record)[first].body.messages.filter((m) => m.role === 'user');
      const body = JSON.stringify(user);
      assert.ok(body.includes('explain @calc.go'), `the input as submitted: ${body.slice(0, 400)}`);
      assertMentioned(body, ws, 'calc.go');
      assert.ok(!JSON.stringify(requests(model.record).map((r) => r.body)).includes('never sent'), 'the cancelled input ran nothing');
      await idle(page).waitFor({ timeout: 20000 });
    },
  });
}

module.exports = { add, assertMentioned };
