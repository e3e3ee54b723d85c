// The trust question in a real VS Code: a project's .catbuddy/mcp.json
// starts nothing until the user trusts the project. "Agent: Trust This
// Project…" makes the server ask; the question is a modal dialog naming the
// exact command line; "Not now" starts nothing; "Trust" starts the server
// without a restart; "Agent: Untrust This Project" stops it again (its
// stdin closes, and it says so in a file).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

// add appends the scenario's test.
function add({ tests, palette, notified }) {
  tests.push({
    name: 'the trust question is a modal dialog; Not now starts nothing, Trust starts the server, Untrust stops it',
    async fn(ctx) {
      const { page, ws, run, waitFor } = ctx;
      const marker = path.join(run, 'trust-ran');
      const stopped = `${marker}.stopped`;
      // Written once the server runs, so the question comes from the command, not the start.
      const logFile = path.join(run, 'cb-ls.log');
      await waitFor('cb-ls initialized', 60000, () => fs.existsSync(logFile) && fs.readFileSync(logFile, 'utf8').includes('msg=initialized'));
      const cfg = path.join(ws, '.catbuddy', 'mcp.json');
      fs.mkdirSync(path.dirname(cfg), { recursive: true });
      const line = `: > ${marker}; while read -r l; do :; done; : > ${stopped}`;
      fs.writeFileSync(cfg, JSON.stringify({ mcpServers: { probe: { command: 'sh', args: ['-c', line] } } }));
      const dialog = page.locator('.monaco-dialog-box');
      try {
        for (const answer of ['Not now', 'Trust']) {
          await palette(page, 'F1', '>Agent: Trust This Project');
          await dialog.waitFor({ state: 'visible', timeout: 30000 });
          const text = await dialog.innerText();
          assert.match(text, /Trust the project .*\?/, 'the dialog asks about the project');
          assert.ok(text.includes(`probe: sh -c "${line}"`), `the dialog names the command line:\n${text}`);
          if (answer === 'Not now') {
            const shot = path.join(ctx.art, 'vscode-trust-question.png');
            await page.screenshot({ path: shot });
            if (ctx.docsShot) {
              fs.copyFileSync(shot, path.join(path.dirname(ctx.docsShot), 'vscode-trust-question.png'));
            }
          }
          await dialog.getByRole('button', { name: answer, exact: true }).click();
          await dialog.waitFor({ state: 'hidden', timeout: 10000 });
          if (answer === 'Not now') {
            await page.waitForTimeout(1000); // a server that wrongly started would have written the marker by now
            assert.ok(!fs.existsSync(marker), 'nothing may start after Not now');
          }
        }
        await waitFor('the trusted project server to start', 30000, () => fs.existsSync(marker));
        assert.ok(!fs.existsSync(stopped), 'the trusted server is running');
        await palette(page, 'F1', '>Agent: Untrust This Project');
        await notified(page, 'is not trusted', 20000);
        await waitFor('Untrust to stop the project server', 30000, () => fs.existsSync(stopped));
        assert.ok(!(await dialog.isVisible()), 'untrust asks nothing');
      } finally {
        await palette(page, 'F1', '>Agent: Untrust This Project').catch(() => {});
        fs.rmSync(path.dirname(cfg), { recursive: true, force: true });
      }
    },
  });
}

module.exports = { add };
