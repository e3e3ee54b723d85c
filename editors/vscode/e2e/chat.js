// The chat view's e2e tests, added to the scenario by scenario.js: a run
// streams into the view, Stop cancels, a follow-up is answered with the
// whole history, and after a server restart a run picked from the list is
// continued (the server loads it from the user's state directory). Then: Fix This
// brings the hidden view back with its run, keeping the focus off it, and
// ends with one short notification (Show, Undo); the input with no run
// selected starts an Ask whose answer streams in, code coloured.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

// chat is the chat view's page.
const chat = (page) => page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');

/** add appends the chat tests and their model turns to the scenario. */
const REVEAL_GO = 'package calc\n\n// Half returns n halved.\nfunc Half(n int) int {\n\treturn n * 2\n}\n';

function add({ files, script, tests, requests, palette, openAt, idle, fixAndWaitForPreview, notification, notices, closeCenter }) {
  files['reveal.go'] = REVEAL_GO;
  const base = script.turns.length; // request n gets turn n: ours follow the others'
  script.turns.push(
    { tool_calls: [{ name: 'read_file', args: { path: 'calc.go' } }] },
    { text: 'Add returns `a + b`:\n\n```go\nfunc Add(a, b int) int {\n\treturn a + b\n}\n```\n\nSo **Add(2, 3)** is 5.' },
    { text: 'Looking at the callers of Add one by one now', hang: true, after: 3 },
    { tool_calls: [{ name: 'read_file', args: { path: 'calc.go' } }] },
    { text: 'Keep Add and add AddInts(xs ...int) int beside it.' },
    { text: 'Still there after the restart: AddInts goes next to Add.' },
    // Fix This with the view hidden (base + 6…)
    { tool_calls: [{ name: 'read_file', args: { path: 'reveal.go' } }] },
    { tool_calls: [{ name: 'edit_file', args: { path: 'reveal.go', old_string: 'return n * 2', new_string: 'return n / 2' } }] },
    { text: 'Half doubled instead of halving; it divides now.' },
    // an Ask from the view's input (base + 9…)
    { text: 'Let me read calc.go first.', tool_calls: [{ name: 'read_file', args: { path: 'calc.go' } }] },
    { text: 'Add returns the sum:\n\n```go\nreturn a + b // Add(2, 3) == 5\n```' },
    // Explain This from the code action menu (base + 11)
    { text: 'Add adds its two arguments.' },
    // Explain This with catbuddy.revealChat off (base + 12)
    { text: 'Add still adds.' },
  );
  const bodyOf = (ctx, n) => JSON.stringify(requests(ctx.model.record)[n].body.messages);
  // extensionLog is the text of the extension's output channel (its log files under the user-data dir).
  function extensionLog(ctx) {
    const dir = path.join(ctx.run, 'ud/logs');
    return fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('cb-ls.log'))
      .map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
  }
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
        // No test before opened the view by hand: the runs that started
        // (Fix This…) opened it, each shown with its id.
        await chat(page).locator('#title', { hasText: /\(r[0-9a-f]+\)/ }).waitFor({ timeout: 10000 });
        await palette(page, 'F1', '>Agent: Show Chat');
        // Show Chat puts the cursor in the input (wait for it: a focus arriving
        // later would close the quick input that the next step opens).
        await ctx.waitFor('the chat input to have the focus', 10000, () => chat(page).locator('#input').evaluate((e) => e.ownerDocument.activeElement === e));
        await openAt(ctx, 'calc.go', 4, 'func Add');
        await palette(page, 'F1', '>Agent: Explain This');
        const view = chat(page);
        await view.locator('.msg.answer', { hasText: 'So Add(2, 3) is 5.' }).waitFor({ timeout: 30000 });
        await view.locator('details.tool', { hasText: 'read_file calc.go' }).waitFor({ timeout: 5000 });
        await view.locator('pre[data-lang="go"]', { hasText: 'return a + b' }).waitFor({ timeout: 5000 });
        await view.locator('pre[data-lang="go"] .tk-keyword', { hasText: 'func' }).first().waitFor({ timeout: 5000 });
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
        assert.equal(await notices(page, 'add AddInts').count(), 0, 'a reply the view shows ends there, without a notification');
        await noTranscriptTab(page);
        if (await page.locator('.part.panel').isVisible()) {
          await palette(page, 'F1', '>View: Hide Panel'); // an earlier test's log, not part of the picture
          await page.locator('.part.panel').waitFor({ state: 'hidden', timeout: 10000 });
        }
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
    {
      name: 'chat view: Fix This shows its run in the hidden view, focus kept; the end says "Agent: done — 1 file changed" with Show and Undo',
      async fn(ctx) {
        const { page, ws } = ctx;
        const view = chat(page);
        const sidebar = page.locator('.part.sidebar');
        await palette(page, 'F1', '>View: Close Primary Side Bar');
        await sidebar.waitFor({ state: 'hidden', timeout: 10000 });
        await openAt(ctx, 'reveal.go', 5, 'return n * 2');
        await palette(page, 'F1', '>Notifications: Clear All Notifications');
        const { boxes } = await fixAndWaitForPreview(ctx);
        await sidebar.waitFor({ state: 'visible', timeout: 10000 });
        await view.locator('#title', { hasText: 'Agent: Fix This' }).waitFor({ timeout: 10000 });
        assert.ok(await page.evaluate(() => !document.activeElement?.closest('.part.sidebar')), 'the focus is not taken by the chat view');
        await boxes.first().click();
        await page.getByRole('button', { name: 'Apply', exact: true }).click();
        const file = path.join(ws, 'reveal.go');
        await ctx.waitFor('reveal.go fixed on disk', 20000, () => fs.readFileSync(file, 'utf8') === REVEAL_GO.replace('n * 2', 'n / 2'));
        await idle(page).waitFor({ timeout: 20000 });
        const toast = await notification(page, 'Agent: done — 1 file changed', 20000);
        assert.equal(await notices(page, 'Agent: done — 1 file changed').count(), 1, 'one notification for the run');
        await toast.getByRole('button', { name: 'Undo' }).waitFor({ timeout: 5000 });
        const runId = /\((r[0-9a-f]+)\)/.exec(await view.locator('#title').innerText())?.[1];
        assert.ok(runId, 'the view names the run');
        // Show brings the run back into a view that moved on and was closed.
        await view.locator('#new').click();
        await view.locator('#title', { hasText: 'New conversation' }).waitFor({ timeout: 5000 });
        await palette(page, 'F1', '>View: Close Primary Side Bar');
        await sidebar.waitFor({ state: 'hidden', timeout: 10000 });
        await toast.getByRole('button', { name: 'Show' }).click();
        await closeCenter(page);
        await view.locator('#title', { hasText: runId }).waitFor({ timeout: 10000 });
        await view.locator('.msg.answer', { hasText: 'Half doubled instead of halving' }).waitFor({ timeout: 5000 });
        await view.locator('details.tool', { hasText: 'edit_file reveal.go +1 −1' }).waitFor({ timeout: 5000 });
        await noTranscriptTab(page);
      },
    },
    {
      name: 'chat view: with no run selected, the input starts an Ask whose answer streams in',
      async fn(ctx) {
        const { page, model, run } = ctx;
        const view = chat(page);
        await view.locator('#new').click();
        await view.locator('#title', { hasText: 'New conversation' }).waitFor({ timeout: 5000 });
        await say(ctx, 'what does Add return?');
        await view.locator('.msg.answer', { hasText: 'Add returns the sum' }).waitFor({ timeout: 30000 });
        await view.locator('#title', { hasText: /Ask.*\(r[0-9a-f]+\)/ }).waitFor({ timeout: 5000 });
        // The text came as it streamed: before the tool call it preceded, the answer after both.
        const order = await view.locator('#log > *').evaluateAll((els) =>
          els.map((e) => (e.matches('.msg.user') ? 'user' : e.matches('details.tool') ? 'tool' : e.matches('.msg.answer') ? 'answer' : e.matches('.msg.agent') ? 'text' : e.className)));
        assert.deepEqual(order, ['user', 'text', 'tool', 'answer', 'outcome done']);
        await view.locator('.msg.agent', { hasText: 'Let me read calc.go first.' }).waitFor({ timeout: 5000 });
        await view.locator('pre[data-lang="go"] .tk-keyword', { hasText: 'return' }).waitFor({ timeout: 5000 });
        await view.locator('pre[data-lang="go"] .tk-comment', { hasText: '// Add(2, 3) == 5' }).waitFor({ timeout: 5000 });
        // The server ran an ask with the typed input.
        const user = JSON.stringify(requests(model.record)[base + 9].body.messages.filter((m) => m.role === 'user'));
        assert.ok(user.includes('what does Add return?'), `the Ask's request: ${user.slice(0, 300)}`);
        assert.match(fs.readFileSync(path.join(run, 'cb-ls.log'), 'utf8'), /run ended[^\n]*command=ask[^\n]*outcome=done/);
        await idle(page).waitFor({ timeout: 20000 });
        await noTranscriptTab(page);
      },
    },
    {
      name: 'chat view: a run from the code action menu (Explain This) is shown in the closed view too',
      async fn(ctx) {
        const { page } = ctx;
        const view = chat(page);
        const sidebar = page.locator('.part.sidebar');
        await openAt(ctx, 'calc.go', 4, 'func Add');
        await palette(page, 'F1', '>View: Close Primary Side Bar');
        await sidebar.waitFor({ state: 'hidden', timeout: 10000 });
        // The server's code action runs catbuddy.run on the server directly, not through the extension's commands.
        const focused = page.locator('.action-widget .monaco-list-row.focused').first();
        for (let attempt = 1; ; attempt++) {
          await page.keyboard.press('Control+.');
          try {
            await focused.waitFor({ timeout: attempt < 3 ? 7000 : 20000 });
            break;
          } catch (err) {
            if (attempt >= 3) throw err;
            await page.keyboard.press('Escape');
          }
        }
        for (let i = 0; i < 10 && !(await focused.innerText()).includes('Agent: Explain This'); i++) {
          await page.keyboard.press('ArrowDown');
        }
        assert.match(await focused.innerText(), /Agent: Explain This/);
        await page.keyboard.press('Enter');
        await sidebar.waitFor({ state: 'visible', timeout: 20000 });
        await view.locator('.msg.answer', { hasText: 'Add adds its two arguments.' }).waitFor({ timeout: 30000 });
        await view.locator('#title', { hasText: 'Agent: Explain This' }).waitFor({ timeout: 5000 });
        assert.ok(await page.evaluate(() => !document.activeElement?.closest('.part.sidebar')), 'the focus is not taken by the chat view');
        await idle(page).waitFor({ timeout: 20000 });
      },
    },
    {
      name: 'chat view: with catbuddy.revealChat off a closed view stays closed; Show opens it on the run',
      async fn(ctx) {
        const { page, ws } = ctx;
        const view = chat(page);
        const sidebar = page.locator('.part.sidebar');
        const settingsFile = path.join(ws, '.vscode/settings.json');
        const good = fs.readFileSync(settingsFile, 'utf8');
        fs.writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(good), 'catbuddy.revealChat': false }, null, 2));
        try {
          await openAt(ctx, 'calc.go', 4, 'func Add');
          await palette(page, 'F1', '>View: Close Primary Side Bar');
          await sidebar.waitFor({ state: 'hidden', timeout: 10000 });
          // The setting reaches the extension host through the file watcher; its log says when.
          await ctx.waitFor('the extension to see catbuddy.revealChat off', 20000, () => extensionLog(ctx).includes('catbuddy.revealChat: false'));
          await palette(page, 'F1', '>Agent: Explain This');
          const ended = await notification(page, 'Add still adds.', 30000);
          assert.ok(!(await sidebar.isVisible()), 'the closed view stayed closed');
          await ended.getByRole('button', { name: 'Show' }).click();
          await sidebar.waitFor({ state: 'visible', timeout: 10000 });
          await view.locator('.msg.answer', { hasText: 'Add still adds.' }).waitFor({ timeout: 10000 });
          await idle(page).waitFor({ timeout: 20000 });
        } finally {
          fs.writeFileSync(settingsFile, good);
          await closeCenter(page).catch(() => {});
        }
      },
    },
  );
}

module.exports = { add, chat };
