// Diagnostics after an edit: the agent's edit breaks a JSON file, VS Code's
// built-in JSON language features report it, and the edit's tool result (what
// the model reads next) names the new error. add() appends the model turns
// and the test to the scenario's, after those already there.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const DATA = '{\n  "a": 1,\n  "b": 2\n}\n';

function add({ files, script, tests, openAt, idle, requests, fixAndWaitForPreview }) {
  // In the workspace from the start: Quick Open finds files through its own
  // search index, which may not have seen a file created during the session.
  files['data.json'] = DATA;
  const first = script.turns.length; // the index of this file's first model request
  script.turns.push(
    { tool_calls: [{ name: 'edit_file', args: { path: 'data.json', old_string: '"b": 2', new_string: '"b": 2 "c": 3' } }] },
    { text: 'I added "c"; the JSON server now reports a missing comma.' },
  );

  tests.push({
    name: 'an edit that breaks the file: its result names the new diagnostic from VS Code\'s JSON support',
    async fn(ctx) {
      const { page, ws, model } = ctx;
      await idle(page).waitFor({ timeout: 60000 });
      const file = path.join(ws, 'data.json');
      fs.writeFileSync(file, DATA); // as it was, whatever ran before
      await openAt(ctx, 'data.json', 3, '"b": 2');
      const { boxes } = await fixAndWaitForPreview(ctx);
      await boxes.first().click();
      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      await ctx.waitFor('the model to hear back after the edit', 30000, () => requests(model.record).length >= first + 2);
      const msgs = requests(model.record)[first + 1].body.messages.filter((m) => m.role === 'tool');
      const result = String(msgs[msgs.length - 1].content);
      assert.match(result, /Edited data\.json/, `edit_file result: ${result}`);
      assert.match(result, /After this edit, json reports:\ndata\.json:3:\d+ error: Expected comma.* \(new\)/, `edit_file result: ${result}`);
      await idle(page).waitFor({ timeout: 20000 });
    },
  });
}

module.exports = { add };
