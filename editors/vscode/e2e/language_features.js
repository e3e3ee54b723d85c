// E2E test of the editor's language servers as the agent's tools: on a
// two-file TypeScript project, answered by VS Code's built-in TypeScript
// support through catbuddy/languageFeature, the model asks `lsp` for a
// definition and for references, then renames the function with
// `rename_symbol`; the rename shows in the Refactor Preview and lands in
// both files after Apply. Added to the scenario by scenario.js; the script's
// turns are consumed in order.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const GREET = '// greet builds the greeting for name.\nexport function greet(name: string): string {\n  return `hello, ${name}`;\n}\n';
// The arrow is one UTF-16 code unit and three bytes: the rename's columns
// on that line are right only if every layer counts UTF-16.
const MAIN = "import { greet } from './greet';\n\nexport function twice(name: string): string {\n  return '→ ' + greet(name) + ' → ' + greet(name);\n}\n";

function add({ files, script, tests, palette, openAt, idle, requests }) {
  files['tsconfig.json'] = JSON.stringify({ compilerOptions: { strict: true, target: 'es2020', module: 'commonjs' }, include: ['src'] }, null, 2) + '\n';
  files['src/greet.ts'] = GREET;
  files['src/main.ts'] = MAIN;
  const first = script.turns.length; // the index of this test's first model request
  script.turns.push(
    { tool_calls: [{ name: 'lsp', args: { operation: 'definition', path: 'src/main.ts', line: 4, symbol: 'greet' } }] },
    { tool_calls: [{ name: 'lsp', args: { operation: 'references', path: 'src/greet.ts', line: 2, symbol: 'greet' } }] },
    { tool_calls: [{ name: 'rename_symbol', args: { path: 'src/greet.ts', line: 2, symbol: 'greet', new_name: 'welcome' } }] },
    { text: 'Renamed greet to welcome in both files.' },
  );
  // The last tool result of a recorded request, as text.
  const lastResult = (req) => {
    const res = (req.body.messages || []).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
    return res[res.length - 1] || '';
  };

  tests.push({
    name: "language features: lsp definition and references and rename_symbol through VS Code's TypeScript, reviewed in the Refactor Preview",
    async fn(ctx) {
      const { page, ws, model } = ctx;
      const greet = path.join(ws, 'src/greet.ts');
      const main = path.join(ws, 'src/main.ts');
      // The run shows in the chat view, which says it ended (no notification): cb-ls's log tells.
      const ended = () => (fs.readFileSync(path.join(ctx.run, 'cb-ls.log'), 'utf8').match(/run ended[^\n]*command=explain[^\n]*outcome=done/g) || []).length;
      const endedBefore = ended();
      await openAt(ctx, 'main.ts', 4, 'greet(name)');
      await palette(page, 'F1', '>Agent: Explain This');

      await ctx.waitFor('the definition answer', 60000, () => requests(model.record).length >= first + 2);
      const def = lastResult(requests(model.record)[first + 1]);
      assert.match(def, /^1 definition of greet\b.*\n\s*src\/greet\.ts:2: export function greet\(name: string\): string \{$/, `definition: ${def}`);

      await ctx.waitFor('the references answer', 60000, () => requests(model.record).length >= first + 3);
      const refs = lastResult(requests(model.record)[first + 2]);
      for (const want of [/^\s*src\/main\.ts:1: import \{ greet \} from '\.\/greet';$/m, /^\s*src\/main\.ts:4:\s+return '→ ' \+ greet\(name\) \+ ' → ' \+ greet\(name\);  \[2 on this line, at columns 17, 39\]$/m, /^4 references to greet \(src\/greet\.ts:2\), the declaration included:$/m]) {
        assert.match(refs, want, 'references');
      }

      // The rename waits for the review: nothing is written before it.
      const panel = page.locator('.bulk-edit-panel').first();
      await panel.waitFor({ timeout: 60000 });
      const files = panel.locator('.monaco-list-row[aria-level="1"]');
      await ctx.waitFor('both files in the Refactor Preview', 20000, async () => (await files.count()) === 2);
      await panel.locator('.monaco-list-row', { hasText: 'welcome' }).first().waitFor({ timeout: 10000 });
      assert.equal(fs.readFileSync(greet, 'utf8'), GREET, 'greet.ts unchanged before the review');
      assert.equal(fs.readFileSync(main, 'utf8'), MAIN, 'main.ts unchanged before the review');
      await page.waitForTimeout(500); // let the diff render for the screenshot; nothing is synchronised on it
      const shot = path.join(ctx.art, 'vscode-rename-preview.png');
      await page.screenshot({ path: shot });
      if (ctx.docsShot) {
        fs.copyFileSync(shot, path.join(path.dirname(ctx.docsShot), 'vscode-rename-preview.png'));
      }
      for (let i = 0; i < 2; i++) {
        await files.nth(i).locator('input.edit-checkbox, .monaco-checkbox').first().click();
      }
      await page.getByRole('button', { name: 'Apply', exact: true }).click();

      const wantGreet = GREET.replace('function greet', 'function welcome');
      const wantMain = MAIN.replaceAll('greet(', 'welcome(').replace('{ greet }', '{ welcome }');
      await ctx.waitFor('the rename on disk in both files', 20000, () => fs.readFileSync(greet, 'utf8') === wantGreet && fs.readFileSync(main, 'utf8') === wantMain)
        .catch((e) => assert.fail(`${e.message}\ngreet.ts:\n${fs.readFileSync(greet, 'utf8')}\nmain.ts:\n${fs.readFileSync(main, 'utf8')}`));
      await ctx.waitFor('the model to hear back after the rename', 20000, () => requests(model.record).length >= first + 4);
      const renamed = lastResult(requests(model.record)[first + 3]);
      assert.ok(!/rejected|not applied|error/i.test(renamed) && renamed.includes('welcome'), `rename_symbol result: ${renamed}`);
      await idle(page).waitFor({ timeout: 20000 });
      await ctx.waitFor('cb-ls to log the run done', 10000, () => ended() === endedBefore + 1);
    },
  });
}

module.exports = { add };
