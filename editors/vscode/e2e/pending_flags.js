// E2E test of a run's flagged pending files in the Pending Changes view,
// with catbuddy.review "pending": a command writes .envrc (it runs later:
// direnv loads it), a symlink (a whole-file item) and a git hook (under
// .git/: keep refuses it). The view marks .envrc with "runs later: …",
// shows the link as one row with its label and no hunks, and the hook
// with "not kept: …"; the run's Keep All keeps the first two and reports
// the refusal, and its Undo All discards the hook. Added after
// pending_view.js by scenario.js: the script's turns are consumed in order.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const FLAGS = 'package calc\n\n// Flag returns a.\nfunc Flag(a int) int {\n\treturn a\n}\n';

function add({ files, script, tests, palette, openAt, idle, notification, closeCenter }) {
  files['flags.go'] = FLAGS;
  script.turns.push(
    { tool_calls: [{ name: 'exec', args: { command: "echo 'export X=1' > .envrc && ln -s flags.go flags_link && mkdir -p .git/hooks && printf '#!/bin/sh\\n' > .git/hooks/pre-commit", write: true, reason: 'set up direnv' } }] },
    { text: 'Set up.' },
  );
  const pane = (page) => page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Pending Changes' }) }).first();
  const rows = (page, hasText) => pane(page).locator('.monaco-list-row', { hasText });
  const runRow = (page) => pane(page).locator('.monaco-list-row[aria-level="1"]').first();
  // rowAction clicks one of a row's inline actions (they show on hover).
  async function rowAction(page, row, label) {
    await row.hover();
    const action = row.locator(`.action-label[aria-label^="${label}"]`).first();
    await action.waitFor({ timeout: 10000 });
    await action.click();
  }

  tests.push({
    name: 'pending changes view: runs later and not kept are shown; a link is one whole-file row; Keep All keeps all but the refused',
    async fn(ctx) {
      const { page, ws } = ctx;
      const before = fs.readFileSync(ctx.userSettings, 'utf8');
      fs.writeFileSync(ctx.userSettings, JSON.stringify({ ...JSON.parse(before), 'catbuddy.review': 'pending' }, null, 2));
      try {
        await palette(page, 'F1', '>Notifications: Clear All Notifications');
        await idle(page).waitFor({ timeout: 30000 });
        await openAt(ctx, 'flags.go', 5, 'return a');
        await palette(page, 'F1', '>Agent: Fix This');
        const ended = await notification(page, '3 files changed — pending review', 60000);
        await ended.getByRole('button', { name: 'Review', exact: true }).click();
        await closeCenter(page);
        const envrc = rows(page, '.envrc').first();
        await envrc.waitFor({ timeout: 20000 });
        assert.match(await envrc.innerText(), /runs later: direnv loads it on cd/, 'the .envrc row says it runs later');
        const link = rows(page, 'flags_link').first();
        await link.waitFor({ timeout: 10000 });
        assert.match(await link.innerText(), /flags_link: link -> flags\.go/, 'the link row shows its label');
        assert.equal(await link.getAttribute('aria-expanded'), null, 'the whole-file row has no hunks to expand');
        const hook = rows(page, 'pre-commit').first();
        await hook.waitFor({ timeout: 10000 });
        assert.match(await hook.innerText(), /not kept: cb-ls never writes into a \.git directory/, 'the hook row says it will not be kept');
        // Neither its row nor its hunk's offers Keep; Undo stays.
        const hookHunk = rows(page, '#!/bin/sh').first();
        for (const row of [hook, hookHunk]) {
          await row.hover();
          await row.locator('.action-label[aria-label^="Undo"]').first().waitFor({ timeout: 10000 });
          assert.equal(await row.locator('.action-label[aria-label^="Keep"]').count(), 0, 'no Keep on a refused row');
        }
        assert.equal(fs.existsSync(path.join(ws, '.envrc')), false, 'nothing on disk while pending');
        await page.screenshot({ path: path.join(ctx.art, 'vscode-pending-flags.png') });
        await rowAction(page, runRow(page), 'Keep All Pending Changes');
        const warned = await notification(page, 'left pending', 20000);
        assert.match(await warned.innerText(), /\.git directory/, 'the refusal is reported');
        await closeCenter(page);
        await ctx.waitFor('.envrc and the link kept', 20000, () => fs.existsSync(path.join(ws, '.envrc')) && fs.lstatSync(path.join(ws, 'flags_link'), { throwIfNoEntry: false })?.isSymbolicLink());
        assert.equal(fs.existsSync(path.join(ws, '.git', 'hooks', 'pre-commit')), false, 'the hook never reached the disk');
        await ctx.waitFor('only the hook pending', 20000, async () => (await rows(page, '.envrc').count()) === 0 && (await rows(page, 'pre-commit').count()) === 1);
        await rowAction(page, runRow(page), 'Undo All Pending Changes');
        await ctx.waitFor('nothing pending', 20000, async () => (await rows(page, 'pre-commit').count()) === 0);
        assert.equal(fs.existsSync(path.join(ws, '.git', 'hooks', 'pre-commit')), false, 'the discarded hook never reached the disk');
      } finally {
        fs.writeFileSync(ctx.userSettings, before);
        fs.rmSync(path.join(ws, '.envrc'), { force: true });
        fs.rmSync(path.join(ws, 'flags_link'), { force: true });
      }
    },
  });
}

module.exports = { add };
