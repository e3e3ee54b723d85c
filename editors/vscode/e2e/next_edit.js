// Next-edit suggestions (docs/completions.md#next-edit-suggestions): the
// user turns next edits on (completions off) with Ollama as the provider
// and changes a line; after the pause cb-ls asks the model for the edit
// that comes next, and shows it as a pending "nes-" hunk on the line below;
// Tab, with the cursor next to it, keeps it into the buffer. A second
// scripted model server plays Ollama (POST /api/generate): cb-ls asks at
// every pause, a number of requests no script can foresee, so each gets
// the same answer, the file's region rewritten with the next edit. Added
// to the scenario by scenario.js.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const SCALE_GO = 'package calc\n\n// Scale scales a point.\nfunc Scale(x, y int) (int, int) {\n\tsx := x * 2\n\tsy := y * 2\n\treturn sx, sy\n}\n';
// The user changes sx's factor; the next edit is sy's.
const EDITED = SCALE_GO.replace('x * 2', 'x * 3');
const NEXT = EDITED.replace('y * 2', 'y * 3');

// logged counts the extension's log lines holding text.
function logged(ctx, text) {
  const dir = path.join(ctx.run, 'ud/logs');
  return fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('cb-ls.log'))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n').split(text).length - 1;
}

function add({ files, tests, openAt, idle, palette, requests }) {
  files['scale.go'] = SCALE_GO;

  tests.push({
    name: 'next edit: after an edit and a pause the model\'s next edit shows as a pending hunk, Tab keeps it into the buffer',
    async fn(ctx) {
      const { page, ws, run } = ctx;
      const dir = path.join(run, 'next-edit-model');
      fs.mkdirSync(dir, { recursive: true });
      // The whole file is the region (it is shorter than the 20 lines
      // read around the edit): every request gets it with the next edit.
      const nes = await ctx.startScriptModel(dir, { turns: Array.from({ length: 60 }, () => ({ text: `<region>\n${NEXT}</region>` })) });
      const good = fs.readFileSync(ctx.userSettings, 'utf8');
      const set = logged(ctx, 'catbuddy.inlineCompletion.enabled: false');
      let passed = false;
      try {
        // Completions off, next edits on: no ghost text competes for Tab.
        fs.writeFileSync(ctx.userSettings, JSON.stringify({
          ...JSON.parse(good),
          'catbuddy.inlineCompletion.enabled': false,
          'catbuddy.inlineCompletion.nextEdit': true,
          'catbuddy.inlineCompletion.provider': 'ollama',
          'catbuddy.inlineCompletion.baseUrl': nes.url.replace(/\/v1$/, ''),
          'catbuddy.inlineCompletion.model': 'nes-model',
        }, null, 2));
        await ctx.waitFor('the server to have the next-edit settings', 20000, () => logged(ctx, 'catbuddy.inlineCompletion.enabled: false') > set);
        await openAt(ctx, 'scale.go', 5, 'func Scale');
        await page.keyboard.press('End');
        await page.keyboard.press('Backspace');
        await page.keyboard.type('3');
        const keep = page.locator('.codelens-decoration a', { hasText: /^Keep$/ });
        await ctx.waitFor('the next edit\'s Keep lens', 30000, async () => (await keep.count()) === 1);
        assert.equal(fs.readFileSync(path.join(ws, 'scale.go'), 'utf8'), SCALE_GO, 'a suggestion changes nothing by itself');

        // The cursor is still at the end of the line the user changed, the
        // line above the suggestion's: Tab keeps it, and inserts no tab.
        await page.keyboard.press('Tab');
        await ctx.waitFor('the Keep lens gone', 10000, async () => (await keep.count()) === 0);
        await page.keyboard.press('Control+s');
        await ctx.waitFor('the kept next edit saved', 10000, () => fs.readFileSync(path.join(ws, 'scale.go'), 'utf8') === NEXT)
          .catch((e) => assert.fail(`${e.message}\nscale.go:\n${fs.readFileSync(path.join(ws, 'scale.go'), 'utf8')}`));

        // What reached the model: Ollama's generate with a system prompt,
        // the user's change and the region.
        const reqs = requests(nes.record).filter((r) => r.path === '/api/generate');
        const asked = reqs.find((r) => r.body.prompt.includes('+\tsx := x * 3') && r.body.prompt.includes(`<region>\n${EDITED}</region>`));
        assert.ok(asked, `a next-edit request after the change: ${JSON.stringify(reqs.map((r) => r.body.prompt))}`);
        assert.equal(asked.body.model, 'nes-model');
        assert.ok(asked.body.system, 'the next-edit system prompt');
        passed = true;
      } finally {
        // Leave scale.go as it was and no next edits on for the next test.
        // Clearing the settings restarts cb-ls (an absent key cannot be sent).
        const unset = logged(ctx, 'catbuddy.inlineCompletion.enabled: unset');
        fs.writeFileSync(ctx.userSettings, good);
        const restore = async () => {
          await ctx.waitFor('the next-edit settings cleared', 30000, () => logged(ctx, 'catbuddy.inlineCompletion.enabled: unset') > unset);
          if ((await page.locator('.tabs-container .tab.dirty').count()) > 0) {
            await palette(page, 'F1', '>File: Revert File');
            await ctx.waitFor('scale.go reverted', 10000, async () => (await page.locator('.tabs-container .tab.dirty').count()) === 0);
          }
          fs.writeFileSync(path.join(ws, 'scale.go'), SCALE_GO);
          await idle(page).waitFor({ timeout: 60000 });
        };
        // Later tests need the settings back; a failure above is the one to report.
        await restore().catch((e) => { if (passed) throw e; });
      }
    },
  });
}

module.exports = { add };
