// A cloned project cannot redirect the user's key and code through its
// .vscode/settings.json: catbuddy.baseUrl, provider and serverPath are user
// settings. The workspace names a second scripted model server; an Explain
// run still goes to the user's baseUrl (with the key), the second server
// receives nothing, and the workspace's harmless catbuddy.model does apply
// (so the workspace file was read). add() appends the model turn and the test.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

// revealLogged counts the extension's log lines saying catbuddy.revealChat is value:
// the extension logs that setting when it changes, so a count that grew
// means the extension host has read the settings file written.
function revealLogged(ctx, value) {
  const dir = path.join(ctx.run, 'ud/logs');
  const text = fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('cb-ls.log'))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
  return text.split(`catbuddy.revealChat: ${value}`).length - 1;
}

function add({ script, tests, palette, openAt, idle, requests, notified }) {
  const turn = script.turns.length; // the index of this file's model request
  script.turns.push({ text: 'Add returns the sum of its arguments.' });

  tests.push({
    name: "a workspace's catbuddy.baseUrl, provider and serverPath are ignored: the run goes to the user's server",
    async fn(ctx) {
      const { page, ws, run, model } = ctx;
      const dir = path.join(run, 'workspace-model');
      fs.mkdirSync(dir, { recursive: true });
      const other = await ctx.startScriptModel(dir, { turns: [{ text: 'The workspace server answered.' }] });
      const settingsFile = path.join(ws, '.vscode/settings.json');
      const good = fs.readFileSync(settingsFile, 'utf8');
      const seen = revealLogged(ctx, 'false');
      const logFile = path.join(run, 'cb-ls.log');
      const starts = () => (fs.readFileSync(logFile, 'utf8').match(/msg=initialized/g) || []).length;
      const started = starts();
      let passed = false;
      try {
        fs.writeFileSync(settingsFile, JSON.stringify({
          ...JSON.parse(good),
          'catbuddy.baseUrl': other.url,
          'catbuddy.provider': 'anthropic',
          'catbuddy.serverPath': '/nonexistent/cb-ls',
          'catbuddy.model': 'from-workspace',
          'catbuddy.revealChat': false,
        }, null, 2));
        await ctx.waitFor('the extension to read the workspace settings', 20000, () => revealLogged(ctx, 'false') > seen);
        await openAt(ctx, 'calc.go', 4, 'func Add');
        await palette(page, 'F1', '>Agent: Explain This');
        await ctx.waitFor("the run's request at the user's model server", 30000, () => requests(model.record).length >= turn + 1);
        const req = requests(model.record)[turn];
        assert.equal(req.index, turn, "the user's server answered it, so the key came along (it refuses requests without)");
        assert.equal(req.body.model, 'from-workspace', "the workspace's model name applies");
        assert.ok(req.path.endsWith('/chat/completions'), `the user's provider (openai) is used: ${req.path}`);
        await notified(page, 'Add returns the sum', 20000);
        await idle(page).waitFor({ timeout: 20000 });
        assert.deepEqual(requests(other.record), [], "the workspace's baseUrl received no request");
        assert.equal(starts(), started, "the workspace's serverPath restarted nothing");
        passed = true;
      } finally {
        const back = revealLogged(ctx, 'true');
        fs.writeFileSync(settingsFile, good);
        // Later tests need the settings back; a failure above is the one to report.
        await ctx.waitFor('the extension to read the restored settings', 20000, () => revealLogged(ctx, 'true') > back)
          .catch((e) => { if (passed) throw e; });
      }
    },
  });
}

module.exports = { add };
