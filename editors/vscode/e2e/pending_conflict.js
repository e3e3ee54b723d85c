// E2E test of a pending hunk in conflict, and its way out, with
// catbuddy.review "pending": two runs insert a line at the same place of
// both.go (Fix This, then Ask…), each pending; the first run's hunk is
// kept, so the user's text now has a line where the second run's hunk
// inserts: that hunk is in conflict. Its CodeLenses are the four
// resolutions and Undo (no Keep), the Pending Changes view marks it, and
// Keep Both puts both insertions in the buffer, the user's first, and on
// disk; the hunk leaves the set and its lenses go. Added after the other
// pending tests by scenario.js: the script's turns are consumed in order.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const BOTH = 'package calc\n\n// Sum returns a plus b.\nfunc Sum(a, b int) int {\n\treturn a + b\n}\n';
const FIRST = BOTH.replace('\treturn a + b\n', '\t// first\n\treturn a + b\n');
const KEPT_BOTH = BOTH.replace('\treturn a + b\n', '\t// first\n\t// second\n\treturn a + b\n');

function add({ files, script, tests, palette, openAt, idle, notified, notification, closeCenter }) {
  files['both.go'] = BOTH;
  script.turns.push(
    { tool_calls: [{ name: 'edit_file', args: { path: 'both.go', old_string: '\treturn a + b\n', new_string: '\t// first\n\treturn a + b\n' } }] },
    { text: 'Added the first line.' },
    { tool_calls: [{ name: 'edit_file', args: { path: 'both.go', old_string: '\treturn a + b\n', new_string: '\t// second\n\treturn a + b\n' } }] },
    { text: 'Added the second line.' },
  );

  const lens = (page, hasText) => page.locator('.codelens-decoration a', { hasText });
  const pane = (page) => page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Pending Changes' }) }).first();

  tests.push({
    name: 'pending conflict: two runs insert at one line, the first is kept, the second conflicts; Keep Both gives both lines',
    async fn(ctx) {
      const { page, ws } = ctx;
      const file = path.join(ws, 'both.go');
      const before = fs.readFileSync(ctx.userSettings, 'utf8');
      fs.writeFileSync(ctx.userSettings, JSON.stringify({ ...JSON.parse(before), 'catbuddy.review': 'pending' }, null, 2));
      let passed = false;
      try {
        await idle(page).waitFor({ timeout: 30000 });
        await palette(page, 'F1', '>Notifications: Clear All Notifications');
        await openAt(ctx, 'both.go', 5, 'return a + b');
        await palette(page, 'F1', '>Agent: Fix This');
        await notified(page, '1 file changed — pending review', 60000);
        await lens(page, /^Keep$/).first().waitFor({ timeout: 20000 });

        // The second run, while the first one's hunk is pending: its own title tells the lenses apart.
        await palette(page, 'F1', '>Notifications: Clear All Notifications');
        await palette(page, 'F1', '>Agent: Ask');
        const input = page.locator('.quick-input-widget input[placeholder*="@ adds a file"]');
        await input.waitFor({ state: 'visible', timeout: 15000 });
        await input.pressSequentially('add the second line');
        await page.keyboard.press('Enter');
        await notified(page, '1 file changed — pending review', 60000);
        const first = lens(page, /^Keep \(Agent: Fix This\)$/);
        await first.first().waitFor({ timeout: 20000 });
        await ctx.waitFor('a Keep lens for each run', 20000, async () => (await lens(page, /^Keep \(/).count()) === 2);
        assert.equal(fs.readFileSync(file, 'utf8'), BOTH, 'nothing on disk while pending');

        // Keep the first run's hunk: the user's text now has its line where the second inserts.
        await first.first().click();
        await ctx.waitFor('the first run\'s line on disk', 20000, () => fs.readFileSync(file, 'utf8') === FIRST);
        const keepBoth = lens(page, 'Keep Both');
        await keepBoth.first().waitFor({ timeout: 20000 });
        const titles = (await page.locator('.codelens-decoration a').allInnerTexts()).map((t) => t.trim());
        assert.deepEqual(titles, ['Keep Both', 'Keep Yours', "Take the Run's", 'Conflict Markers', 'Undo'], 'a conflict offers the resolutions, and no Keep');

        // The Pending Changes view marks the conflict on the hunk and its file.
        await palette(page, 'F1', '>Focus on Pending Changes View');
        const row = pane(page).locator('.monaco-list-row', { hasText: 'both.go' }).first();
        await row.waitFor({ timeout: 20000 });
        assert.match(await row.innerText(), /conflict/, 'the file row says conflict');
        const hunkRow = pane(page).locator('.monaco-list-row', { hasText: 'line' }).filter({ hasText: 'conflict' }).first();
        await hunkRow.waitFor({ timeout: 10000 });
        await page.screenshot({ path: path.join(ctx.art, 'vscode-pending-conflict.png') });

        await keepBoth.first().click();
        const done = await notification(page, 'Kept both', 20000);
        assert.match(await done.innerText(), /your lines, then the run's/);
        await closeCenter(page);
        await ctx.waitFor('both lines on disk, the user\'s first', 20000, () => fs.readFileSync(file, 'utf8') === KEPT_BOTH);
        await ctx.waitFor('the conflict gone: no lens, no row', 20000, async () =>
          (await page.locator('.codelens-decoration a').count()) === 0 && (await pane(page).locator('.monaco-list-row', { hasText: 'both.go' }).count()) === 0);
        // The editor's lines in screen order (Monaco reuses its line elements, so DOM order is not line order).
        const shown = await page.locator('.monaco-editor .view-line').evaluateAll((els) =>
          els.map((el) => ({ top: parseFloat(el.style.top) || 0, text: (el.textContent || '').replace(/\u00a0/g, ' ').trim() })).sort((a, b) => a.top - b.top).map((l) => l.text));
        const at = shown.indexOf('// first');
        assert.ok(at >= 0 && shown[at + 1] === '// second' && shown[at + 2] === 'return a + b', `both insertions in the buffer: ${JSON.stringify(shown)}`);
        assert.equal(await page.locator('.tabs-container .tab.dirty').count(), 0, 'the buffer saved: it is what is on disk');
        passed = true;
      } finally {
        fs.writeFileSync(ctx.userSettings, before);
        if (!passed) {
          // Leave nothing pending or unsaved for the tests after this one.
          await openAt(ctx, 'both.go', 1, 'package calc').catch(() => {});
          await palette(page, 'F1', '>Agent: Undo All Pending Changes').catch(() => {});
          await palette(page, 'F1', '>File: Revert File').catch(() => {});
        }
      }
    },
  });
}

module.exports = { add };
