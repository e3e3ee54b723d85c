// Scenarios of a newcomer's first runs: what a failed run says and how often,
// the transcript only on request, transcripts kept out of git, the log at its
// levels, the busy-document message, and the "Agent" submenu of the editor's
// context menu. add() appends their model turns and tests to the scenario's,
// in the same order, after the tests already there.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

// logFiles lists the files under dir whose name ends with suffix.
function logFiles(dir, suffix) {
  if (!fs.existsSync(dir)) {
    return [];
  }
  return fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith(suffix)).map((f) => path.join(dir, f));
}

function add({ script, tests, palette, openAt, closeAll, idle, requests, notification, notices, closeCenter }) {
  const first = script.turns.length; // the index of this file's first model request
  script.turns.push(
    // a run refused by the provider: the key is wrong
    { status: 401 },
    // a run that hangs until it is cancelled
    { hang: true, after: 0 },
  );

  tests.push(
    {
      name: 'a failed run: one notification naming Agent: Set API Key…, the transcript on request',
      async fn(ctx) {
        const { page, ws, model } = ctx;
        await idle(page).waitFor({ timeout: 60000 });
        await openAt(ctx, 'calc.go', 5, 'return a');
        await palette(page, 'F1', '>Notifications: Clear All Notifications');
        await palette(page, 'F1', '>Agent: Explain This');
        await ctx.waitFor('the refused model request', 20000, () => requests(model.record).length >= first + 1);
        // The extension shows it on the run's end event: the run is over.
        const failed = await notification(page, 'failed', 20000);
        assert.equal(await notices(page, 'failed').count(), 1, 'one notification for the failed run');
        const text = await failed.innerText();
        assert.match(text, /Agent: Explain This failed: /);
        assert.ok(!text.includes('Agent: Agent:'), `the title is not doubled: ${text}`);
        assert.match(text, /Agent: Set API Key…/, 'the hint names the command that sets the key');
        assert.ok(!/apiKey setting/.test(text), `no "apiKey setting" (VS Code has none): ${text}`);
        assert.equal(await page.locator('.tabs-container .tab', { hasText: /\.md/ }).count(), 0, 'no transcript opened unasked');
        await failed.getByRole('button', { name: 'Open Transcript' }).click();
        await closeCenter(page);
        const tab = page.locator('.tabs-container .tab', { hasText: /-explain\.md/ }).first();
        await tab.waitFor({ timeout: 20000 });
        const name = (await tab.innerText()).trim().split(/\s/)[0];
        // Transcripts live in the user's state directory, never in the project.
        const found = logFiles(path.join(ctx.run, 'state/catbuddy/folders'), `/sessions/${name}`);
        assert.equal(found.length, 1, `${name} among the sessions in the state directory: ${found}`);
        const transcript = fs.readFileSync(found[0], 'utf8');
        assert.equal(transcript.split('\n').filter((l) => l === '# Agent: Explain This').length, 1, `one title:\n${transcript}`);
        assert.equal((transcript.match(/^- run: `/gm) || []).length, 1, `one run line:\n${transcript}`);
        assert.ok(!fs.existsSync(path.join(ws, '.catbuddy/sessions')), 'no sessions in the project');
      },
    },
    {
      name: 'Show Log: cb-ls lines at their own levels',
      async fn(ctx) {
        const { page, run } = ctx;
        await palette(page, 'F1', '>Agent: Show Log');
        const dir = path.join(run, 'ud/logs');
        let lines = [];
        await ctx.waitFor('the cb-ls output channel to log "initialized"', 20000, () => {
          lines = logFiles(dir, 'cb-ls.log').flatMap((f) => fs.readFileSync(f, 'utf8').split('\n'));
          return lines.some((l) => /\[info\] msg=initialized/.test(l));
        });
        const wrong = lines.filter((l) => /\[error\].*level=(INFO|DEBUG|WARN)/.test(l) || /\[error\] msg=initialized/.test(l));
        assert.deepEqual(wrong, [], 'no info line logged as an error');
        assert.ok(lines.some((l) => /\[info\] msg="run ended"/.test(l)), 'the run log is at info level');
        // The panel takes the focus when it has opened: wait for it, so the
        // next keys go to the palette and not to a panel still opening.
        await page.locator('.part.panel .view-lines', { hasText: 'msg=' }).first().waitFor({ timeout: 20000 });
        await closeAll(ctx);
      },
    },
    {
      name: 'a second run on a busy document names Agent: Cancel Run; the cancel is said once',
      async fn(ctx) {
        const { page, model } = ctx;
        await openAt(ctx, 'calc.go', 5, 'return a');
        await palette(page, 'F1', '>Notifications: Clear All Notifications');
        await palette(page, 'F1', '>Agent: Fix This');
        await ctx.waitFor('the model request that hangs', 20000, () => requests(model.record).length >= first + 2);
        await palette(page, 'F1', '>Agent: Fix This');
        const busy = await notification(page, 'already has a run', 20000);
        const text = await busy.innerText();
        assert.match(text, /Agent: Cancel Run/);
        // Expected, not a fault: a warning on screen and in the log.
        assert.equal(await busy.locator('.codicon-warning').count(), 1, 'the refusal is a warning notification');
        assert.equal(await busy.locator('.codicon-error').count(), 0, 'the refusal is not an error notification');
        await closeCenter(page);
        // The extension's line and the server's, both in the cb-ls channel.
        let lines = [];
        await ctx.waitFor('the refusal in the cb-ls log', 20000, () => {
          lines = logFiles(path.join(ctx.run, 'ud/logs'), 'cb-ls.log')
            .flatMap((f) => fs.readFileSync(f, 'utf8').split('\n'))
            .filter((l) => l.includes('already has a run'));
          return lines.some((l) => l.includes('catbuddy.fix: ')) && lines.some((l) => l.includes('msg="run refused'));
        });
        const wrong = lines.filter((l) => l.includes('[error]') || (l.includes('catbuddy.fix: ') && !l.includes('[warning]')) || (l.includes('msg="run refused') && !l.includes('[info]')));
        assert.deepEqual(wrong, [], 'the refusal is logged as a warning by the extension, at info by the server');
        assert.ok(!/on on|catbuddy\.cancel \{/.test(text.split('Agent: Cancel Run')[0]), `plain words before the command: ${text}`);
        await palette(page, 'F1', '>Agent: Cancel Run');
        const cancelled = await notification(page, 'Agent: Fix This: cancelled by the user.', 20000);
        assert.ok(!(await cancelled.innerText()).includes('cancelled (cancelled'), 'the cancel is said once');
        await closeCenter(page);
        await idle(page).waitFor({ timeout: 20000 });
        assert.equal(requests(model.record).length, first + 2, 'the refused run never reached the model');
      },
    },
    {
      name: 'the editor context menu groups the commands under "Agent"',
      async fn(ctx) {
        const { page } = ctx;
        await openAt(ctx, 'calc.go', 5, 'return a');
        await page.locator('.monaco-editor .view-line', { hasText: 'return a' }).first().click({ button: 'right' });
        const agent = page.locator('.monaco-menu .action-item', { hasText: /^Agent$/ }).first();
        await agent.waitFor({ timeout: 10000 });
        assert.equal(await page.locator('.monaco-menu .action-label', { hasText: /^Fix This$/ }).count(), 0, 'Fix This is not beside Cut and Copy');
        await agent.hover();
        await page.locator('.monaco-menu .action-label', { hasText: /^Fix This$/ }).first().waitFor({ timeout: 10000 });
        await page.locator('.monaco-menu .action-label', { hasText: /^Explain This$/ }).first().waitFor({ timeout: 5000 });
        await page.keyboard.press('Escape');
        await page.keyboard.press('Escape');
        await closeAll(ctx);
      },
    },
  );
}

module.exports = { add };
