// The chat view's e2e tests, added to the scenario by scenario.js: a run
// streams into the view, Stop cancels, a follow-up is answered with the
// whole history, and after a server restart a run picked from the list is
// continued (the server loads it from .catbuddy/sessions).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

/** add appends the chat tests and their model turns to the scenario. */
function add({ script, tests, requests, palette, openAt, idle }) {
  const base = script.turns.length; // request n gets turn n: ours follow the others'
  script.turns.push(
    { tool_calls: [{ name: 'read_file', args: { path: 'calc.go' } }] },
    { text: 'Add returns `a + b`:\n\n```go\nfunc Add(a, b int) int {\n\treturn a + b\n}\n```\n\nSo **Add(2, 3)** is 5.' },
    { text: 'Looking at the callers of Add one by one now', hang: true, after: 3 },
    { tool_calls: [{ name: 'read_file', args: { path: 'calc.go' } }] },
    { text: 'Keep Add and add AddInts(xs ...int) int beside it.' },
    { text: 'Still there after the restart: AddInts goes next to Add.' },
  );
  const chat = (page) => page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
  const bodyOf = (ctx, n) => JSON.stringify(requests(ctx.model.record)[n].body.messages);
  // A reply's turn ends in the view: no transcript opens unasked.
  async function noTranscriptTab(page) {
    const tabs = await page.locator('.tabs-container .tab').allInnerTexts();
    assert.ok(!tabs.some((t) => /\.md\b/.test(t)), `a transcript opened unasked: tabs ${JSON.stringify(tabs)}`);
  }
  async function say(ctx, text) {
    const input = chat(ctx.page).locator('#input');
    await input.click();
    await input.fill(text);
    await input.press('Enter');
  }

  tests.push(
    {
      name: 'chat view: a run streams in, Stop cancels it, a follow-up is answered with the history',
      async fn(ctx) {
        const { page, model } = ctx;
        await palette(page, 'F1', '>Agent: Show Chat');
        await chat(page).locator('#input').waitFor({ timeout: 20000 });
        await openAt(ctx, 'calc.go', 4, 'func Add');
        await palette(page, 'F1', '>Agent: Explain This');
        const view = chat(page);
        await view.locator('.msg.answer', { hasText: 'So Add(2, 3) is 5.' }).waitFor({ timeout: 30000 });
        await view.locator('details.tool', { hasText: 'read_file calc.go' }).waitFor({ timeout: 5000 });
        await view.locator('pre[data-lang="go"]', { hasText: 'return a + b' }).waitFor({ timeout: 5000 });
        assert.match(await view.locator('#tokens').innerText(), /\d+ in · \d+ out tokens/);

        // A follow-up whose answer streams: its text shows while the run goes on, with Stop.
        await say(ctx, 'which callers break?');
        await view.locator('.msg.agent', { hasText: 'Looking at' }).waitFor({ timeout: 30000 });
        const stop = view.locator('#stop');
        await stop.waitFor({ state: 'visible', timeout: 5000 });
        assert.equal(await view.locator('.outcome').count(), 1, 'the second turn has not ended while its text streams');
        await stop.click();
        await view.locator('.outcome.cancelled').waitFor({ timeout: 20000 });
        await idle(page).waitFor({ timeout: 20000 });

        await say(ctx, 'no, keep the old signature and add an overload');
        await view.locator('.msg.answer', { hasText: 'add AddInts(xs ...int) int beside it' }).waitFor({ timeout: 30000 });
        await idle(page).waitFor({ timeout: 20000 });
        assert.equal(await view.locator('.msg.user').count(), 3, 'three user turns in the one conversation');
        const body = bodyOf(ctx, base + 3);
        for (const want of ['read_file', 'package calc', 'So **Add(2, 3)** is 5.', 'which callers break?', 'interrupted', 'no, keep the old signature and add an overload']) {
          assert.ok(body.includes(want), `the follow-up's request lacks ${JSON.stringify(want)}: ${body.slice(0, 400)}…`);
        }
        assert.equal(requests(model.record).length, base + 5);
        await noTranscriptTab(page);
        const shot = path.join(ctx.art, 'vscode-chat.png');
        await page.screenshot({ path: shot });
        if (ctx.docsShot) {
          fs.copyFileSync(shot, path.join(path.dirname(ctx.docsShot), 'vscode-chat.png'));
        }
      },
    },
    {
      name: 'chat view: after a server restart, a run picked from the list is continued',
      async fn(ctx) {
        const { page } = ctx;
        const view = chat(page);
        const runId = /\((r[0-9a-f]+)\)/.exec(await view.locator('#title').innerText())?.[1];
        assert.ok(runId, 'the view names its run');
        await palette(page, 'F1', '>Agent: Restart Server');
        await idle(page).waitFor({ timeout: 60000 });
        await view.locator('#runs').click();
        const input = page.locator('.quick-input-widget input');
        await input.waitFor({ state: 'visible', timeout: 15000 });
        await page.locator('.quick-input-list .monaco-list-row', { hasText: 'done · 3 turns' }).first().waitFor({ timeout: 15000 });
        await input.fill(runId);
        await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: runId }).waitFor({ timeout: 10000 });
        await page.keyboard.press('Enter');
        await view.locator('#title', { hasText: runId }).waitFor({ timeout: 10000 });

        await say(ctx, 'is it still there after the restart?');
        await view.locator('.msg.answer', { hasText: 'Still there after the restart' }).waitFor({ timeout: 30000 });
        const body = bodyOf(ctx, base + 5);
        for (const want of ['So **Add(2, 3)** is 5.', 'no, keep the old signature and add an overload', 'Keep Add and add AddInts', 'is it still there after the restart?']) {
          assert.ok(body.includes(want), `the request after the restart lacks ${JSON.stringify(want)}`);
        }
        await idle(page).waitFor({ timeout: 20000 });
        await noTranscriptTab(page);
      },
    },
  );
}

module.exports = { add };
