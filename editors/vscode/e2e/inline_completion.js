// Ghost-text completions (docs/completions.md): the user turns on
// catbuddy.inlineCompletion with Ollama as the provider, types in a Go file,
// and cb-ls's answer shows as VS Code's ghost text; Tab accepts it into the
// buffer. A second scripted model server plays Ollama (POST /api/generate):
// VS Code asks at every pause in the typing, a number of requests no script
// can foresee, so they must not consume the main script's turns. Its
// recorded request shows what reached the model: the prefix up to the
// cursor and the suffix after it. Added to the scenario by scenario.js.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const GHOST_GO = 'package calc\n\n// Double returns twice n.\nfunc Double(n int) int {\n\t\n}\n';

// logged counts the extension's log lines holding text.
function logged(ctx, text) {
  const dir = path.join(ctx.run, 'ud/logs');
  return fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('cb-ls.log'))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n').split(text).length - 1;
}

function add({ files, tests, openAt, idle, palette, requests }) {
  files['ghost.go'] = GHOST_GO;

  tests.push({
    name: 'inline completion: typing shows the model\'s completion as ghost text, Tab accepts it into the buffer',
    async fn(ctx) {
      const { page, ws, run } = ctx;
      const dir = path.join(run, 'completion-model');
      fs.mkdirSync(dir, { recursive: true });
      // Every request gets the same answer, however many VS Code sends.
      const fim = await ctx.startScriptModel(dir, { turns: Array.from({ length: 60 }, () => ({ text: 'n * 2' })) });
      const good = fs.readFileSync(ctx.userSettings, 'utf8');
      const on = logged(ctx, 'catbuddy.inlineCompletion.enabled: true');
      let passed = false;
      try {
        // A user setting, as the docs say to set it (provider, endpoint and
        // model are user settings: a workspace cannot turn completions on).
        fs.writeFileSync(ctx.userSettings, JSON.stringify({
          ...JSON.parse(good),
          'catbuddy.inlineCompletion.enabled': true,
          'catbuddy.inlineCompletion.provider': 'ollama',
          'catbuddy.inlineCompletion.baseUrl': fim.url.replace(/\/v1$/, ''),
          'catbuddy.inlineCompletion.model': 'fim-model',
        }, null, 2));
        await ctx.waitFor('the server to have the completion settings', 20000, () => logged(ctx, 'catbuddy.inlineCompletion.enabled: true') > on);
        await openAt(ctx, 'ghost.go', 5, 'func Double');
        // Right after the window starts, the keys can land before the
        // editor has the focus: the typing must show in the buffer (its
        // tab dirty), else it goes again with a click on the line.
        const dirty = page.locator('.tabs-container .tab.dirty', { hasText: 'ghost.go' });
        for (let attempt = 0; ; attempt++) {
          await page.keyboard.press('End');
          await page.keyboard.type('return ');
          const typed = await dirty.waitFor({ timeout: 5000 }).then(() => true, () => false);
          if (typed) break;
          if (attempt === 2) assert.fail('the typing never reached ghost.go');
          await page.locator('.monaco-editor .view-line', { hasText: /^\s*$/ }).first().click();
        }
        // VS Code draws the ghost text in the editor's lines as decorations
        // (its first line as .ghost-text-decoration, further ones as .ghost-text).
        const ghosts = page.locator('.monaco-editor .ghost-text-decoration, .monaco-editor .ghost-text');
        let seen = [];
        const shown = async () => {
          seen = (await ghosts.evaluateAll((els) => els.map((e) => `${e.className}: ${JSON.stringify(e.textContent)}`)));
          return (await ghosts.allTextContents()).join('').replace(/\u00a0/g, ' ') === 'n * 2';
        };
        // VS Code asks at a pause in the typing. Right after the window
        // starts, a pause sometimes brings no completion to the model at
        // all (not understood yet: cb-ls logged no request), and VS Code
        // asks again only once the user types on, as a user would: a
        // space and its backspace, then the wait goes on.
        for (let attempt = 0; ; attempt++) {
          const ok = await ctx.waitFor('the ghost text "n * 2"', 10000, shown).then(() => true, () => false);
          if (ok) break;
          if (attempt === 2) assert.fail(`no ghost text "n * 2" after three pauses; the ghost elements: ${JSON.stringify(seen)}`);
          await page.keyboard.type(' ');
          await page.keyboard.press('Backspace');
        }
        assert.equal(fs.readFileSync(path.join(ws, 'ghost.go'), 'utf8'), GHOST_GO, 'a suggestion changes nothing by itself');

        await page.keyboard.press('Tab');
        // The ghost text is drawn in the line too, so the line reads the
        // same before Tab and after; saving shows what the buffer holds.
        // VS Code asks again at the new cursor (this script answers every
        // request the same, so a new ghost may follow, never saved), and
        // a save before Tab was handled saves the typing alone: it is
        // saved again until the file holds the accepted completion.
        const want = GHOST_GO.replace('{\n\t\n}', '{\n\treturn n * 2\n}');
        await ctx.waitFor('the accepted completion saved', 10000, async () => {
          await page.keyboard.press('Control+s');
          return fs.readFileSync(path.join(ws, 'ghost.go'), 'utf8') === want;
        }).catch((e) => assert.fail(`${e.message}\nghost.go:\n${fs.readFileSync(path.join(ws, 'ghost.go'), 'utf8')}`));

        // What reached the model: Ollama's own API with the text up to the
        // cursor as the prompt's end and the rest of the file as the suffix.
        const reqs = requests(fim.record).filter((r) => r.path === '/api/generate');
        const at = reqs.find((r) => r.body.prompt.endsWith('func Double(n int) int {\n\treturn '));
        assert.ok(at, `a request at the cursor after "return ": ${JSON.stringify(reqs.map((r) => r.body.prompt.slice(-40)))}`);
        assert.equal(at.body.model, 'fim-model');
        assert.match(at.body.suffix, /^\n}\n?$/, 'the suffix is the rest of the file');
        assert.equal(at.body.stream, false);
        assert.deepEqual(requests(fim.record).filter((r) => r.path !== '/api/generate'), [], 'only /api/generate was asked');
        passed = true;
      } finally {
        // Leave ghost.go as it was and no completions on for the next test.
        // Clearing the settings restarts cb-ls (an absent key cannot be sent).
        const unset = logged(ctx, 'catbuddy.inlineCompletion.enabled: unset');
        fs.writeFileSync(ctx.userSettings, good);
        const restore = async () => {
          await ctx.waitFor('the completion settings cleared', 30000, () => logged(ctx, 'catbuddy.inlineCompletion.enabled: unset') > unset);
          if ((await page.locator('.tabs-container .tab.dirty').count()) > 0) {
            await palette(page, 'F1', '>File: Revert File');
            await ctx.waitFor('ghost.go reverted', 10000, async () => (await page.locator('.tabs-container .tab.dirty').count()) === 0);
          }
          fs.writeFileSync(path.join(ws, 'ghost.go'), GHOST_GO);
          await idle(page).waitFor({ timeout: 60000 });
        };
        // Later tests need the settings back; a failure above is the one to report.
        await restore().catch((e) => { if (passed) throw e; });
      }
    },
  });
}

module.exports = { add };
