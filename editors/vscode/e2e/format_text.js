// E2E test of catbuddy/formatText: the model rewrites a TypeScript function
// with replace_symbol in text that is not formatted; cb-ls asks the
// extension to format the text the change leaves, which formats it with
// VS Code's TypeScript formatter in an untitled document it never shows, and
// the Refactor Preview offers the change already formatted. The model is told
// "formatted by the editor"; no untitled document is left behind, and no
// document is dirty. Added to the scenario by scenario.js; the script's
// turns are consumed in order.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const SHAPE = '// area is the area of a w×h rectangle.\nexport function area(w: number, h: number): number {\n  return w + h;\n}\n';
const UNFORMATTED = 'export function area(w:number,h:number):number{\n      return w*h;\n}';
const FORMATTED = '// area is the area of a w×h rectangle.\nexport function area(w: number, h: number): number {\n  return w * h;\n}\n';

function add({ files, script, tests, palette, openAt, idle, requests }) {
  files['src/shape.ts'] = SHAPE;
  const first = script.turns.length; // the index of this test's first model request
  script.turns.push(
    { tool_calls: [{ name: 'replace_symbol', args: { path: 'src/shape.ts', symbol: 'area', new_text: UNFORMATTED } }] },
    { text: 'Fixed area: it multiplies now.' },
  );
  const lastResult = (req) => {
    const res = (req.body.messages || []).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
    return res[res.length - 1] || '';
  };

  tests.push({
    name: "formatText: replace_symbol's change is formatted by VS Code's TypeScript formatter before the Refactor Preview",
    async fn(ctx) {
      const { page, ws, model } = ctx;
      const shape = path.join(ws, 'src/shape.ts');
      await openAt(ctx, 'shape.ts', 3, 'return w + h');
      await palette(page, 'F1', '>Agent: Explain This');

      const panel = page.locator('.bulk-edit-panel').first();
      await panel.waitFor({ timeout: 60000 });
      await panel.locator('.monaco-list-row', { hasText: 'shape.ts' }).first().waitFor({ timeout: 20000 });
      assert.equal(fs.readFileSync(shape, 'utf8'), SHAPE, 'shape.ts unchanged before the review');
      const files = panel.locator('.monaco-list-row[aria-level="1"]');
      await files.first().locator('input.edit-checkbox, .monaco-checkbox').first().click();
      await page.getByRole('button', { name: 'Apply', exact: true }).click();

      await ctx.waitFor('the formatted change on disk', 20000, () => fs.readFileSync(shape, 'utf8') === FORMATTED)
        .catch((e) => assert.fail(`${e.message}\nshape.ts:\n${fs.readFileSync(shape, 'utf8')}`));
      await ctx.waitFor('the model to hear back after replace_symbol', 20000, () => requests(model.record).length >= first + 2);
      const res = lastResult(requests(model.record)[first + 1]);
      assert.match(res, /\(formatted by the editor\.\)/, `replace_symbol result: ${res}`);
      assert.doesNotMatch(res, /not formatted|rejected|not applied/i, `replace_symbol result: ${res}`);
      await idle(page).waitFor({ timeout: 20000 });
      // The scratch document was never shown, and nothing is left to save.
      assert.equal(await page.locator('.tabs-container .tab', { hasText: /Untitled/ }).count(), 0, 'no untitled editor');
      assert.equal(await page.locator('.tabs-container .tab.dirty').count(), 0, 'no dirty editor');
    },
  });
}

module.exports = { add };
