// catbuddy.customCommands is checked by the server, not the extension: the
// setting of editors/testdata/custom_commands.json (which the server's tests
// and the Neovim e2e suite assert too) goes to cb-ls as written; the server's
// warning names the rejected commands in the fixture's words, Agent: Run
// Command… offers exactly the fixture's commands, and the accepted "tests"
// runs with its own prompt. add() appends the model turn and the test.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const fixture = JSON.parse(fs.readFileSync(path.join(__dirname, '../../testdata/custom_commands.json'), 'utf8'));
const BUILTIN = new Set(['fix', 'explain', 'ask']);

function add({ script, tests, palette, openAt, idle, requests, notified, notification, closeCenter }) {
  const turn = script.turns.length; // the index of this file's model request
  script.turns.push({ text: 'Tests written (not really).' });

  tests.push({
    name: "customCommands: the server's warning and commands are the fixture's, and the accepted one runs",
    async fn(ctx) {
      const { page, model } = ctx;
      const settingsFile = ctx.userSettings;
      const good = fs.readFileSync(settingsFile, 'utf8');
      await idle(page).waitFor({ timeout: 60000 });
      await palette(page, 'F1', '>Notifications: Clear All Notifications');
      let passed = false;
      try {
        fs.writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(good), 'catbuddy.customCommands': fixture.customCommands }, null, 2));
        const warning = await notification(page, 'invalid settings ignored', 30000);
        const text = (await warning.locator('.notification-list-item-message').innerText()).trim();
        await closeCenter(page);
        assert.equal(text, fixture.message, 'the warning');

        await openAt(ctx, 'calc.go', 4, 'func Add');
        await palette(page, 'F1', '>Agent: Run Command');
        const rows = page.locator('.quick-input-list .monaco-list-row');
        await page.locator('.quick-input-widget input[placeholder="Run an agent command on the selection"]').waitFor({ timeout: 20000 });
        await ctx.waitFor('the quick pick rows', 10000, async () => (await rows.count()) === fixture.commands.length);
        const shown = [];
        for (let i = 0; i < (await rows.count()); i++) {
          const row = rows.nth(i);
          // The first label is the row's own; a reused row may also hold a hidden detail label.
          shown.push([(await row.locator('.label-name').first().innerText()).trim(), (await row.locator('.label-description').first().innerText()).trim()]);
        }
        // Custom commands first, described by their id; the built-ins after.
        const custom = fixture.commands.filter((c) => !BUILTIN.has(c.id)).map((c) => [c.title, c.id]);
        const builtin = fixture.commands.filter((c) => BUILTIN.has(c.id)).map((c) => [c.title, 'built-in']);
        assert.deepEqual(shown, [...custom, ...builtin], 'Agent: Run Command… offers the server\'s commands');

        const input = page.locator('.quick-input-widget input');
        await input.fill('Agent: Write tests');
        await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: 'Agent: Write tests' }).waitFor({ timeout: 10000 });
        await page.keyboard.press('Enter');
        await ctx.waitFor('the custom run at the model', 30000, () => requests(model.record).length >= turn + 1);
        const body = JSON.stringify(requests(model.record)[turn].body.messages);
        assert.match(body, /Write table tests for/, 'the accepted prompt (the first "tests") reached the model');
        await notified(page, 'Tests written', 20000);
        await idle(page).waitFor({ timeout: 20000 });
        // Settings are read again for the run: the same complaint is not repeated. A toast
        // hides after a while; the notification center keeps every notification since the clear.
        await palette(page, 'F1', '>Notifications: Show Notifications');
        const center = page.locator('.notifications-center .notification-list-item', { hasText: 'invalid settings ignored' });
        await center.first().waitFor({ timeout: 10000 });
        assert.equal(await center.count(), 1, 'one warning in the notification center');
        await palette(page, 'F1', '>Notifications: Hide Notifications');
        passed = true;
      } finally {
        // Clearing the setting restarts cb-ls (a cleared key cannot be sent).
        fs.writeFileSync(settingsFile, good);
        await idle(page).waitFor({ timeout: 60000 }).catch((e) => { if (passed) throw e; });
      }
    },
  });
}

module.exports = { add };
