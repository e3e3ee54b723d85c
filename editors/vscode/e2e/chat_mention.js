// The chat view's input completes workspace paths after "@", with the Ask
// input's ranking: typing "@mu" lists mul.go, a click on it writes
// "@mul.go " into the input; "@calc" lists calc.go first and highlighted,
// Down and Up move the highlight, Escape closes the list and typing opens
// it again, Tab takes calc.go; Enter with the list closed sends, and the
// server expands both mentions, so the model's request holds the files'
// text. add() appends the model turn and the test to the scenario's.
'use strict';
const path = require('node:path');
const assert = require('node:assert/strict');
const { chat } = require('./chat');
const { assertMentioned } = require('./mention');

function add({ script, tests, palette, idle, requests }) {
  const first = script.turns.length; // the index of this file's model request
  script.turns.push({ text: 'mul.go multiplies and calc.go adds.' });

  tests.push({
    name: 'chat view: @ in the input lists workspace files; click, Tab and the keys work; the files reach the model',
    async fn(ctx) {
      const { page, ws, model } = ctx;
      const view = chat(page);
      const input = view.locator('#input');
      const list = view.locator('#mentions');
      const options = list.locator('[role="option"]');
      await palette(page, 'F1', '>Agent: Show Chat');
      await view.locator('#new').click();
      await view.locator('#title', { hasText: 'New conversation' }).waitFor({ timeout: 5000 });
      await input.click();
      await input.fill('');

      // firstOption waits until the list shows the files for the @word, best first.
      async function firstOption(want) {
        let shown = [];
        await ctx.waitFor(`${want} listed first`, 20000, async () => {
          shown = (await list.isVisible()) ? await options.evaluateAll((els) => els.map((e) => e.title)) : [];
          return shown[0] === want;
        }).catch((e) => assert.fail(`${e.message}; the list shows: ${shown.join(', ')}`));
        return shown;
      }

      await input.pressSequentially('compare @mu');
      await firstOption('mul.go');
      await options.first().click();
      await ctx.waitFor('the clicked path in the input', 10000, async () => (await input.inputValue()) === 'compare @mul.go ');
      await list.waitFor({ state: 'hidden', timeout: 5000 });

      await input.pressSequentially('with @calc');
      const shown = await firstOption('calc.go');
      assert.ok(shown.every((p) => /c.*a.*l.*c/i.test(p)), `every file listed matches "calc": ${shown.join(', ')}`);
      const selected = () => options.evaluateAll((els) => els.findIndex((e) => e.getAttribute('aria-selected') === 'true'));
      const activeId = () => input.getAttribute('aria-activedescendant');
      assert.equal(await selected(), 0, 'the best match is highlighted');
      assert.equal(await activeId(), await options.first().getAttribute('id'), 'the input names the highlighted option');
      await page.screenshot({ path: path.join(ctx.art, 'vscode-chat-mention.png') });
      await input.press('ArrowDown');
      assert.equal(await selected(), shown.length > 1 ? 1 : 0, 'Down moves the highlight');
      await input.press('ArrowUp');
      assert.equal(await selected(), 0, 'Up moves it back');
      await input.press('Escape');
      await list.waitFor({ state: 'hidden', timeout: 5000 });
      assert.equal(await input.inputValue(), 'compare @mul.go with @calc', 'Escape changes nothing in the input');
      await input.press('Backspace');
      await input.pressSequentially('c');
      await firstOption('calc.go');
      assert.equal(requests(model.record).length, first, 'nothing is sent while choosing');
      await input.press('Tab');
      await ctx.waitFor('the path taken with Tab in the input', 10000, async () => (await input.inputValue()) === 'compare @mul.go with @calc.go ');
      await list.waitFor({ state: 'hidden', timeout: 5000 });
      assert.ok(await input.evaluate((e) => e.ownerDocument.activeElement === e), 'the input keeps the focus');

      await input.press('Enter');
      await ctx.waitFor('the Ask request', 20000, () => requests(model.record).length >= first + 1);
      const body = JSON.stringify(requests(model.record)[first].body.messages.filter((m) => m.role === 'user'));
      assert.ok(body.includes('compare @mul.go with @calc.go'), `the message as sent: ${body.slice(0, 400)}`);
      assertMentioned(body, ws, 'calc.go');
      assertMentioned(body, ws, 'mul.go');
      await view.locator('.msg.answer', { hasText: 'mul.go multiplies and calc.go adds.' }).waitFor({ timeout: 30000 });
      assert.equal(await input.inputValue(), '', 'the input is empty after sending');
      await idle(page).waitFor({ timeout: 20000 });
    },
  });
}

module.exports = { add };
